// Keeps a page's [data-live] part current: fetches the page again every second and swaps <main>
// until the server stops marking it live. Without scripts, a <noscript> meta refresh does the same.
(function () {
  var INTERVAL_MS = 1000;
  function isLive() {
    return document.querySelector('[data-live]') !== null;
  }
  function poll() {
    fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.text() : null;
      })
      .then(function (html) {
        if (html === null) return;
        var fresh = new DOMParser().parseFromString(html, 'text/html').querySelector('main');
        var current = document.querySelector('main');
        if (fresh && current) current.replaceWith(fresh);
      })
      .catch(function () {
        // A missed refresh is retried on the next tick.
      })
      .then(function () {
        if (isLive()) setTimeout(poll, INTERVAL_MS);
      });
  }
  if (isLive()) setTimeout(poll, INTERVAL_MS);
})();
