"""The families of inputs the claims are tested over: varied sentences, including ones chosen to break
a claim (one word, a word repeated, punctuation only, capitals, digits, emoji, CJK, a long sentence),
and seeds."""

SENTENCES = (
    "This forum is awesome",
    "the cat sat on the mat",
    "The cat sat on the mat because it was tired",
    "I love you",
    "hello",
    "the the the the",
    "A A a a",
    "!?",
    "Hello, world!",
    "Jindřich says: naïve café 你好 🤗!",
    "In 2024, 3 of 7 cats slept.",
    "to be or not to be",
    "MUMMY MUMMY mummy",
    "x = y + z",
    "Colorless green ideas sleep furiously",
    "a b c d e f g h i j k l",
    "We read a good book and we loved it",
    "😀 😀 🤗",
    "Paris is the capital of France and Berlin is the capital of Germany and Rome is the capital of Italy",
    "don't stop",
    "**bold** [link](https://ev.il) $x$",
    "Ce forum est génial",
)
SEEDS = (0, 1, 7, 42, 123)
D_MODELS = (2, 4, 8, 16)
