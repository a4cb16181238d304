// Every phone page: asks Cairn every few seconds whether this phone's session is still open, and when it is not
// (ended on the computer, time up, the vault locked, the phone disconnected, the computer gone), replaces the page
// with a short message, so nothing of the journal stays on the screen.
(function () {
  "use strict";
  function ended() {
    var main = document.createElement("main");
    main.className = "wrap";
    var heading = document.createElement("h1");
    heading.textContent = "This phone session has ended";
    var text = document.createElement("p");
    text.textContent = "Nothing of your journal stays on this page. To connect again, choose Use your phone in Cairn's Settings on your computer and scan the new code.";
    main.appendChild(heading);
    main.appendChild(text);
    document.body.replaceChildren(main);
    document.title = "Session ended · Cairn";
  }
  function check() {
    fetch("/session", { cache: "no-store", credentials: "same-origin" }).then(function (response) {
      if (response.status === 204) { window.setTimeout(check, 5000); } else { ended(); }
    }).catch(ended);
  }
  window.setTimeout(check, 5000);
})();
