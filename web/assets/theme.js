// The console's theme: the one chosen last on this browser, else the
// system's. Loaded before the page is drawn, so it never flashes.
(function () {
  var t = localStorage.getItem('verso-theme');
  if (t !== 'light' && t !== 'dark') {
    t = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  document.documentElement.setAttribute('data-theme', t);
})();
