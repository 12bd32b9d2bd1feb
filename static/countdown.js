// A question's timer, counted down in the browser (ui/classmode.py): the server sends the seconds left when it
// draws the page, so no run is needed each second and the browser's clock need not agree with the server's.
// The text is set with textContent: nothing here is read as HTML.

// The words, in the reader's language: the server sends them from its catalogs (viz.i18n), their {fields} filled here
export const ENGLISH = { left: "{seconds} s left", up: "time is up" };

export function leftText(seconds, texts = ENGLISH) {  // whole seconds, rounded up: "1 s left" until the very end
  const s = Math.max(0, Math.ceil(seconds));
  return s > 0 ? texts.left.replace("{seconds}", String(s)) : texts.up;
}

export default function countdown(component) {
  const { data, parentElement } = component;
  let span = parentElement.querySelector("span.cm-countdown");
  if (!span) {
    span = document.createElement("span");
    parentElement.appendChild(span);
  }
  span.className = "cm-countdown" + (data && data.big ? " big" : "");  // big: the projector's
  // Streamlit calls a component again on each change of its data (each run here: the seconds left) and runs the
  // returned cleanup only when the element goes: the span keeps its one timer, stopped before another starts (two
  // timers took turns writing two times, "5 s left" / "35 s left", after a teacher gave a student more time)
  clearInterval(span.countdownTimer);
  const end = performance.now() + 1000 * Number((data && data.left) || 0);
  const draw = () => {
    const left = (end - performance.now()) / 1000;
    span.textContent = leftText(left, (data && data.texts) || ENGLISH);
    if (left <= 0) clearInterval(timer);
  };
  const timer = setInterval(draw, 250);
  span.countdownTimer = timer;
  draw();
  return () => clearInterval(timer);
}
