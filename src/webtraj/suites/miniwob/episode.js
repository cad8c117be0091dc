// Injected by webtraj into every MiniWoB++ task page (after the page's own scripts).
// It starts the episode by itself with the seed in the URL, as the reference environment
// does (page load, Math.seedrandom(seed), core.startEpisodeReal()), hides the reward panel,
// and reports the outcome to the server with a request (recorded in the episode's HAR), so
// the agent never reads the reward and the evaluator reads it from the trace afterwards.
(function () {
  var params = new URLSearchParams(window.location.search);
  var rawSeed = params.get('seed');
  var seed = rawSeed !== null && /^-?\d+$/.test(rawSeed) ? parseInt(rawSeed, 10) : rawSeed;
  var task = window.location.pathname.split('/').pop().replace(/\.html$/, '');
  var state = { started: false, done: false, reported: false, query: null, timeLimitMs: null,
                errors: [] };
  window.__webtraj = state;
  window.addEventListener('error', function (e) { state.errors.push(String(e.message)); });

  function report(kind, payload) {
    payload.task = task;
    payload.seed = seed;
    // The payload travels in the URL as well as the body: HAR recorders keep URLs always,
    // request bodies not always.
    var data = JSON.stringify(payload);
    return fetch('/_webtraj/' + kind + '?d=' + encodeURIComponent(data), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: data
    }).catch(function () {});
  }

  function whenReady(fn, triesLeft) {
    // Some tasks build their problem asynchronously and say so with WOB_TASK_READY.
    if (typeof WOB_TASK_READY === 'undefined' || WOB_TASK_READY || triesLeft <= 0) { fn(); }
    else { setTimeout(function () { whenReady(fn, triesLeft - 1); }, 50); }
  }

  var pageOnload = window.onload;
  window.onload = function (event) {
    if (typeof pageOnload === 'function') { pageOnload.call(window, event); }
    var endEpisode = core.endEpisode;
    core.endEpisode = function (reward, timeProportional, reason) {
      var live = core.EP_TIMER !== null;
      endEpisode.apply(core, arguments);
      if (!live || state.done) { return; }
      state.done = true;
      // One episode per page load: the start cover no longer starts another one.
      core.startEpisodeReal = function () {};
      if (core.cover_div) { core.cover_div.innerHTML = 'DONE'; }
      // `reported` once the server has the reward (the episode may end there: the HAR has it).
      report('reward', {
        reward: WOB_REWARD_GLOBAL, raw_reward: WOB_RAW_REWARD_GLOBAL,
        reason: WOB_REWARD_REASON == null ? null : String(WOB_REWARD_REASON),
        elapsed_ms: new Date().getTime() - core.ept0
      }).then(function () { state.reported = true; });
    };
    if (seed !== null) { Math.seedrandom(seed); }
    core.startEpisodeReal();
    whenReady(function () {
      // A few pages return {utterance, fields} (their natural-language variants).
      var utterance = core.getUtterance();
      if (utterance && typeof utterance === 'object') { utterance = utterance.utterance; }
      state.query = utterance === undefined || utterance === null ? '' : String(utterance);
      state.timeLimitMs = core.EPISODE_MAX_TIME;
      state.started = true;
      report('start', { query: state.query, time_limit_ms: core.EPISODE_MAX_TIME });
    }, 40);
  };
})();
