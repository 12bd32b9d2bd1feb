// A question's timer, counted down in the browser (ui/classmode.py): the server sends the seconds left when it
// draws the page, so no run is needed each second and the browser's clock need not agree with the server's.
// The text is set with textContent: nothing here is read as HTML.

export function leftText(seconds) {  // whole seconds, rounded up: "1 s left" until the very end
  const s = Math.max(0, Math.ceil(seconds));
  return s > 0 ? `${s} s left` : "time is up";
}

export default function countdown(component) {
  const { data, parentElement } = component;
  let span = parentElement.querySelector("span.cm-countdown");
  if (!span) {
    span = document.createElement("span");
    parentElement.appendChild(span);
  }
  span.className = "cm-countdown" + (data && data.big ? " big" : "");  // big: the projector's
  const end = performance.now() + 1000 * Number((data && data.left) || 0);
  const draw = () => {
    const left = (end - performance.now()) / 1000;
    span.textContent = leftText(left);
    if (left <= 0) clearInterval(timer);
  };
  const timer = setInterval(draw, 250);
  draw();
  return () => clearInterval(timer);
}
