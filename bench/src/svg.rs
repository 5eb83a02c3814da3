//! Plots as SVG text: horizontal bar charts, one group of bars per category.

use std::fmt::Write as _;

const COLORS: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A horizontal grouped bar chart: one row group per category, one bar per series (a missing
/// value draws no bar and says "n/a"). `log`: logarithmic axis (for values spanning decades).
/// `reference`: a vertical line at this value (e.g. 1.0 for ratios).
pub fn bars(
    title: &str,
    unit: &str,
    categories: &[String],
    series: &[(String, Vec<Option<f64>>)],
    log: bool,
    reference: Option<f64>,
) -> String {
    let label_w = 230.0;
    let plot_w = 520.0;
    let bar_h = 13.0;
    let gap = 8.0;
    let top = 48.0 + if series.len() > 1 { 18.0 } else { 0.0 };
    let group_h = bar_h * series.len() as f64 + gap;
    let height = top + group_h * categories.len() as f64 + 34.0;
    let width = label_w + plot_w + 90.0;
    let all: Vec<f64> = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let max = all
        .iter()
        .copied()
        .fold(reference.unwrap_or(0.0), f64::max)
        .max(1e-9);
    let min = all
        .iter()
        .copied()
        .fold(reference.unwrap_or(max), f64::min)
        .max(1e-9);
    let (lo, hi) = if log {
        (
            (min.log10()).floor(),
            (max.log10()).ceil().max(min.log10().floor() + 1.0),
        )
    } else {
        (0.0, max * 1.05)
    };
    let x = |v: f64| -> f64 {
        let t = if log {
            (v.max(1e-12).log10() - lo) / (hi - lo)
        } else {
            v / hi
        };
        label_w + t.clamp(0.0, 1.0) * plot_w
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        s,
        r##"<text x="10" y="36" fill="#555">{}{}</text>"##,
        esc(unit),
        if log { " (log scale)" } else { "" }
    );
    if series.len() > 1 {
        let mut lx = label_w;
        for (k, (name, _)) in series.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<rect x="{lx:.0}" y="{:.0}" width="10" height="10" fill="{}"/>"#,
                top - 20.0,
                COLORS[k % COLORS.len()]
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.0}" y="{:.0}">{}</text>"#,
                lx + 14.0,
                top - 11.0,
                esc(name)
            );
            lx += 24.0 + 7.0 * name.len() as f64;
        }
    }
    // Grid.
    let ticks: Vec<f64> = if log {
        (lo as i32..=hi as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        let step = nice_step(hi / 5.0);
        (0..=((hi / step) as usize))
            .map(|i| i as f64 * step)
            .collect()
    };
    let bottom = top + group_h * categories.len() as f64;
    for t in ticks {
        let tx = x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{tx:.1}" y1="{:.0}" x2="{tx:.1}" y2="{bottom:.0}" stroke="#ddd"/>"##,
            top - 4.0
        );
        let _ = writeln!(
            s,
            r##"<text x="{tx:.1}" y="{:.0}" text-anchor="middle" fill="#555">{}</text>"##,
            bottom + 14.0,
            fmt_num(t)
        );
    }
    for (c, cat) in categories.iter().enumerate() {
        let gy = top + c as f64 * group_h;
        let _ = writeln!(
            s,
            r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 6.0,
            gy + group_h / 2.0,
            esc(cat)
        );
        for (k, (_, vals)) in series.iter().enumerate() {
            let y = gy + k as f64 * bar_h;
            match vals.get(c).copied().flatten() {
                Some(v) if v.is_finite() && v > 0.0 => {
                    let w = (x(v) - label_w).max(1.0);
                    let _ = writeln!(
                        s,
                        r#"<rect x="{label_w:.0}" y="{y:.1}" width="{w:.1}" height="{:.1}" fill="{}"/>"#,
                        bar_h - 2.0,
                        COLORS[k % COLORS.len()]
                    );
                    let _ = writeln!(
                        s,
                        r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                        label_w + w + 3.0,
                        y + bar_h - 4.0,
                        fmt_num(v)
                    );
                }
                _ => {
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" fill="#999">n/a</text>"##,
                        label_w + 3.0,
                        y + bar_h - 4.0
                    );
                }
            }
        }
    }
    if let Some(r) = reference {
        let rx = x(r);
        let _ = writeln!(
            s,
            r##"<line x1="{rx:.1}" y1="{:.0}" x2="{rx:.1}" y2="{bottom:.0}" stroke="#333" stroke-dasharray="4 3"/>"##,
            top - 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}

fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.max(1e-12).log10().floor());
    let f = raw / mag;
    mag * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

fn fmt_num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.0e}")
    }
}
