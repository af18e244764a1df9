// The dashboard's only script: show every <time datetime="…Z"> in the viewer's own time zone.
// The page reads fine without it (times then stay in UTC).
(function () {
  "use strict";
  function localise() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(undefined, {
        year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short"
      });
    } catch (e) {
      return;
    }
    var times = document.querySelectorAll("time[datetime]");
    for (var i = 0; i < times.length; i++) {
      var t = times[i];
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d.getTime())) continue;
      t.title = t.textContent;
      t.textContent = fmt.format(d);
      t.setAttribute("data-local", "1");
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", localise);
  } else {
    localise();
  }
})();
