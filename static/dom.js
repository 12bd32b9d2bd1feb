// The view's one DOM helper (static/view.js and its modules): an element with a class and a text, the text always
// inserted as text, never as HTML (the learner's sentence reaches the view only as data).

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
