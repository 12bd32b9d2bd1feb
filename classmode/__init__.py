"""Class mode: a teacher's class, its lesson state and questions, and the students' answers (``store``)."""
