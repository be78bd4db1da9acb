// Predict, then reveal (explorable explanations' trick): a lesson asks
// first, the visitor commits (a choice, a guess, or the control's own
// position), the answer locks, and only then do the numbers and the why
// appear. Elements marked .until-revealed inside the lesson stay hidden
// until then (CSS: .predicting .until-revealed).
import { escapeHTML } from "./util.js";

// judgeGuess says how far a guessed probability was from the truth.
export function judgeGuess(guess, truth) {
  const off = Math.abs(guess - truth);
  const how = off <= 0.03 ? "spot on" : off <= 0.1 ? "close" : "some way off";
  return `You guessed ${guess.toFixed(2)}; the answer is ${truth.toFixed(3)} (${how}: off by ${off.toFixed(3)}).`;
}

// predict fills el (the lesson's question block) and marks lesson as
// predicting until an answer is locked. spec:
//   choices: [{ value, label }] (a radio group), or none
//   guess: { label, min, max, step, value } (a probability slider), or none
//   judge(answer): a sentence on the prediction ({ choice, guess }) against
//     the numbers at the moment of locking
// It answers { setQuestion, setAnswer (the why, shown once revealed) }.
export function predict(el, lesson, spec) {
  const name = `predict-${Math.random().toString(36).slice(2, 8)}`;
  el.innerHTML = `<h2 class="predict-title">Your prediction</h2><p class="predict-question" id="lesson-question" data-testid="lesson-question-text"></p>` +
    (spec.choices ? `<fieldset class="predict-choices" data-testid="predict-choices"><legend>Your answer</legend>` +
      spec.choices.map((c, i) => `<label><input type="radio" name="${name}" value="${escapeHTML(c.value)}" data-testid="predict-choice-${i}"> ${escapeHTML(c.label)}</label>`).join("") + `</fieldset>` : "") +
    (spec.guess ? `<label class="predict-guess">${escapeHTML(spec.guess.label)} <input type="range" min="${spec.guess.min}" max="${spec.guess.max}" step="${spec.guess.step}" value="${spec.guess.value}" data-testid="predict-guess"> <output data-testid="predict-guess-out">${Number(spec.guess.value).toFixed(2)}</output></label>` : "") +
    `<p><button type="button" data-testid="predict-lock">Lock my answer</button> <span class="muted predict-hint" data-testid="predict-hint"></span></p>` +
    `<div class="predict-result" data-testid="predict-result" hidden><p data-testid="predict-verdict"></p><p id="lesson-answer" data-testid="lesson-answer"></p>` +
    `<p class="muted predict-moved" data-testid="predict-moved" hidden>You have moved the control since you locked: the question, verdict and answer above are for the locked setting. Ask me again to answer at the new one.</p>` +
    `<p><button type="button" class="link" data-testid="predict-again">Ask me again</button></p></div>`;
  const q = (id) => el.querySelector(`[data-testid="${id}"]`);
  const guess = q("predict-guess");
  if (guess) guess.addEventListener("input", () => { q("predict-guess-out").textContent = Number(guess.value).toFixed(2); });
  // Once locked, the question and the why stay those of the locked
  // setting (the verdict speaks of it); a later setting waits for "Ask me
  // again".
  let why = "", question = "";
  let revealed = false;
  const answer = () => ({
    choice: el.querySelector(`input[name="${name}"]:checked`)?.value,
    guess: guess ? Number(guess.value) : undefined,
  });
  function show(on) {
    revealed = on;
    lesson.classList.toggle("predicting", !on);
    q("predict-result").hidden = !on;
    el.querySelectorAll("input").forEach((i) => { i.disabled = on; });
    q("predict-lock").disabled = on;
    if (on) q("lesson-answer").innerHTML = why;
    else q("lesson-question-text").textContent = question;
    q("predict-moved").hidden = true;
  }
  lesson.classList.add("predicting");
  q("predict-lock").addEventListener("click", () => {
    const a = answer();
    if (spec.choices && !a.choice) { q("predict-hint").textContent = "Pick an answer first."; return; }
    q("predict-hint").textContent = "";
    q("predict-verdict").innerHTML = spec.judge(a);
    show(true);
    // The verdict is what the class waits for: it landed just below the
    // fold at 1280×800 on lessons 3 and 4. The page moves only as far as
    // it must (where it is in sight, nothing moves: the student's eyes
    // stay on the Lock button).
    q("predict-verdict").scrollIntoView({ block: "nearest" });
  });
  q("predict-again").addEventListener("click", () => {
    el.querySelectorAll(`input[name="${name}"]`).forEach((i) => { i.checked = false; });
    show(false);
  });
  // A handout shows the answers: printing reveals them.
  const forPrint = () => { if (!revealed) { q("predict-verdict").textContent = "(printed before an answer was locked)"; show(true); } };
  window.addEventListener("beforeprint", forPrint);
  window.matchMedia("print").addEventListener("change", (e) => { if (e.matches) forPrint(); });
  return {
    setQuestion(text) {
      if (text !== question && revealed) q("predict-moved").hidden = false;
      question = text;
      if (!revealed) q("lesson-question-text").textContent = text;
    },
    setAnswer(html) { why = html; },
  };
}
