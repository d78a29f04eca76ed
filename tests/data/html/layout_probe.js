// Layout probe for the browser test (tests/test_html_layout.cpp): injected at the end of a copy of a report,
// it measures the page as Chromium laid it out at the window's width and writes the findings as JSON into a
// <pre id="layout-probe"> that --dump-dom returns. pageOverflow: page width beyond the window (> 0 means a
// horizontal scroll of the whole page); clippedHeaders: table headers whose text does not fit; narrowNames:
// kernel-name cells narrower than 20 characters; overlaps: pairs of SVG texts whose (rotated) boxes intersect;
// emptySections: headings with nothing after them; scrolledBoxes: elements that scroll or cut their content
// sideways (a table inside its own scroll box hides its last columns although the page does not overflow);
// beyond: elements whose right edge lies past the window.
(function () {
  function overlaps(a, b) {
    var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return w > 1 && h > 1;
  }
  var r = {width: window.innerWidth, pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
           clippedHeaders: [], narrowNames: [], overlaps: [], emptySections: [], scrolledBoxes: [], beyond: [],
           tables: 0};
  function label(e) {
    return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className : '');
  }
  document.querySelectorAll('body *').forEach(function (e) {
    if (e.id === 'layout-probe') return;
    var ox = getComputedStyle(e).overflowX;
    if (ox !== 'visible' && e.scrollWidth > e.clientWidth + 1)
      r.scrolledBoxes.push(label(e) + ': ' + e.scrollWidth + ' px of content in ' + e.clientWidth + ' px');
    var right = e.getBoundingClientRect().right;
    if (right > window.innerWidth + 1 && r.beyond.length < 20) r.beyond.push(label(e) + ': right edge at ' + Math.round(right) + ' px');
  });
  document.querySelectorAll('th').forEach(function (th) {
    if (th.scrollWidth > th.clientWidth + 1) r.clippedHeaders.push((th.closest('table').id || '?') + ':' + th.textContent);
  });
  r.tables = document.querySelectorAll('table').length;
  document.querySelectorAll('td.name').forEach(function (td) {
    var cs = getComputedStyle(td), ch = parseFloat(cs.fontSize) * 0.5;
    if (td.getBoundingClientRect().width < 20 * ch) r.narrowNames.push((td.closest('table').id || '?') + ':' + td.textContent.slice(0, 40));
  });
  // Each text's box in its own frame, its corners mapped to the page (rotated labels are rotated boxes).
  function corners(t) {
    var b = t.getBBox(), m = t.getScreenCTM(), svg = t.ownerSVGElement, out = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].forEach(function (c) {
      var p = svg.createSVGPoint();
      p.x = c[0]; p.y = c[1];
      p = p.matrixTransform(m);
      out.push([p.x, p.y]);
    });
    return out;
  }
  // Separating axis test for two convex quadrilaterals, shrunk by a pixel so that touching is not overlap.
  function separated(a, b) {
    var polys = [a, b];
    for (var k = 0; k < 2; k++) {
      var p = polys[k];
      for (var i = 0; i < 4; i++) {
        var q = p[(i + 1) % 4], ax = -(q[1] - p[i][1]), ay = q[0] - p[i][0];
        var len = Math.hypot(ax, ay) || 1;
        ax /= len; ay /= len;
        var amin = Infinity, amax = -Infinity, bmin = Infinity, bmax = -Infinity;
        a.forEach(function (v) { var d = v[0] * ax + v[1] * ay; amin = Math.min(amin, d); amax = Math.max(amax, d); });
        b.forEach(function (v) { var d = v[0] * ax + v[1] * ay; bmin = Math.min(bmin, d); bmax = Math.max(bmax, d); });
        if (amax - 1 <= bmin || bmax - 1 <= amin) return true;
      }
    }
    return false;
  }
  document.querySelectorAll('svg').forEach(function (svg) {
    var boxes = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var b = t.getBBox();
      if (b.width > 0 && b.height > 0) boxes.push([corners(t), t.textContent]);
    });
    for (var i = 0; i < boxes.length; i++)
      for (var j = i + 1; j < boxes.length; j++)
        if (!separated(boxes[i][0], boxes[j][0]))
          r.overlaps.push((svg.id || '?') + ': "' + boxes[i][1] + '" / "' + boxes[j][1] + '"');
  });
  document.querySelectorAll('h2').forEach(function (h) {
    var n = h.nextElementSibling;
    if (!n || n.tagName === 'H2' || n.textContent.trim() === '' && n.tagName !== 'svg' && !n.querySelector('svg'))
      r.emptySections.push(h.textContent);
  });
  var pre = document.createElement('pre');
  pre.id = 'layout-probe';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
})();
