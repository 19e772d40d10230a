/* The Interview page's quiz, in the browser: {"revealed": [qid], "marks": {qid: "knew" |
   "didnt"}} derived from the buttons' last-click times, so a mark never waits on, or is lost
   in, a round trip (overlapping requests of one server callback can drop the newer clicks:
   plotly/dash#941). tests/test_interview.py runs state() and score() under node.

   state(qids, known, reveal, knew, didnt, reset): a click before the last reset is forgotten;
   marking reveals; of "knew" and "didn't" the later click counts; junk times are "never". */
(function () {
  'use strict';
  const ms = v => (typeof v === 'number' && isFinite(v) ? v : -1);  // n_clicks_timestamp; -1, null, junk: never

  function state(qids, known, reveal, knew, didnt, reset) {
    const r0 = ms(reset), revealed = [], marks = {};
    qids.forEach((q, i) => {
      const r = ms(reveal[i]), k = ms(knew[i]), d = ms(didnt[i]);
      if (known.indexOf(q) < 0 || Math.max(r, k, d) <= r0) return;
      revealed.push(q);
      if (Math.max(k, d) > r0) marks[q] = k > d ? 'knew' : 'didnt';
    });
    return {revealed: revealed, marks: marks};
  }

  function score(data, n) {
    const v = Object.values(data.marks);
    const knew = v.filter(m => m === 'knew').length, didnt = v.filter(m => m === 'didnt').length;
    return {knew: knew, didnt: didnt, left: n - knew - didnt};
  }

  // the clientside callback: words = {questions, knew, didnt, shown, hidden} (pages/interview.py)
  function update(reveal, knew, didnt, reset, quiz, words) {
    const cc = window.dash_clientside.callback_context;
    const qids = cc.outputs_list[0].map(o => o.id.q);  // the cards in page order
    const d = state(qids, words.questions, reveal, knew, didnt, reset), s = score(d, words.questions.length);
    const on = quiz === 'on', shown = q => d.revealed.indexOf(q) >= 0;
    return [
      qids.map(q => (!on || shown(q) ? words.shown : words.hidden)),
      qids.map(() => (on ? words.shown : words.hidden)),
      qids.map(q => !shown(q)),
      qids.map(q => !shown(q)),
      qids.map(q => (q in d.marks ? words[d.marks[q]] : '')),
      on ? words.shown : words.hidden,
      String(s.knew), String(s.didnt), String(s.left),
    ];
  }

  if (typeof window !== 'undefined') {
    window.dash_clientside = Object.assign({}, window.dash_clientside, {gelu_quiz: {update: update}});
  }
  if (typeof module !== 'undefined') module.exports = {state: state, score: score};
})();
