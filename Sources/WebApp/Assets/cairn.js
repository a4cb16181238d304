// Cairn: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";
  // Delete confirmation: keep the button disabled until the confirmation word is typed.
  var input = document.getElementById("confirm");
  var button = document.getElementById("delete-confirm");
  if (input && button) {
    var sync = function () { button.disabled = input.value.trim() !== "DELETE"; };
    input.addEventListener("input", sync);
    sync();
  }
})();
