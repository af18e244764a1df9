"""A small SVG chart: latency against store size, log-log, one line per series."""
import math


def svg(series, title, path):
    """series: {name: [(size, ms), ...]}; points of a one-point series are drawn as markers."""
    w, h, left, right, top, bottom = 860, 420, 70, 280, 40, 50
    xs = [s for pts in series.values() for s, _ in pts]
    ys = [m for pts in series.values() for _, m in pts]
    x0, x1 = math.log10(min(xs) / 2), math.log10(max(xs) * 2)
    y0, y1 = math.log10(max(min(ys) / 2, 0.1)), math.log10(max(ys) * 2)
    px = lambda s: left + (math.log10(s) - x0) / (x1 - x0) * (w - left - right)
    py = lambda m: h - bottom - (math.log10(max(m, 0.1)) - y0) / (y1 - y0) * (h - top - bottom)
    colors = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6e63", "#444"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15">{title}</text>']
    for e in range(math.floor(y0), math.ceil(y1) + 1):
        for m in (1, 2, 5):
            v = m * 10 ** e
            if 10 ** y0 <= v <= 10 ** y1:
                y = py(v)
                out.append(f'<line x1="{left}" x2="{w - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
                out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g} ms</text>')
    for s in sorted(set(xs)):
        x = px(s)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{h - bottom}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{h - bottom + 16}" text-anchor="middle">{s:,}</text>')
    out.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">memories in the store (log scale)</text>')
    for i, (name, pts) in enumerate(series.items()):
        c = colors[i % len(colors)]
        pts = sorted(pts)
        if len(pts) > 1:
            d = " ".join(f"{px(s):.1f},{py(m):.1f}" for s, m in pts)
            out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{d}"/>')
        for s, m in pts:
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(m):.1f}" r="4" fill="{c}"/>')
        ly = top + 18 * i + 10
        out.append(f'<rect x="{w - right + 12}" y="{ly - 9}" width="12" height="12" fill="{c}"/>')
        out.append(f'<text x="{w - right + 30}" y="{ly + 1}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
