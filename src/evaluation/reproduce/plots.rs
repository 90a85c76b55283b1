//! The plots of `ssaref reproduce`, drawn as SVG text by the `plotters`
//! crate (its SVG backend only): line plots on linear or log-log axes, and
//! grouped bar charts. Nothing here measures; the sections hand in numbers.

use crate::evaluation::eval_error::EvalError;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// One line of a plot: its legend and its points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line plot.
#[derive(Clone, Debug)]
pub struct LinePlot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Both axes logarithmic (every coordinate must then be > 0; others
    /// are left out).
    pub log_log: bool,
    pub series: Vec<Series>,
    /// Vertical marks at an x, each with its label: a figure of the paper
    /// (e.g. where it places a crossover).
    pub marks: Vec<(f64, String)>,
}

const SIZE: (u32, u32) = (820, 480);

/// The width of the legend, right of the plotting area, clear of the data.
const LEGEND_WIDTH: u32 = 250;

fn err(e: impl std::fmt::Display) -> EvalError {
    EvalError::Plot(format!("plot: {e}"))
}

fn color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    COLORS[i % COLORS.len()]
}

/// The range of the coordinates, widened a little (by a factor on log axes).
fn extent(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        // At least one whole decade, so that the axis has two ticks or more.
        let (mut lo, mut hi) = (lo / 1.5, hi * 1.5);
        if hi / lo < 10.0 {
            lo = 10f64.powf(lo.log10().floor());
            hi = 10f64.powf(hi.log10().ceil());
            if hi / lo < 10.0 {
                hi = lo * 10.0;
            }
        }
        (lo, hi)
    } else {
        let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.05).max(1e-9);
        (if lo >= 0.0 { 0.0 } else { lo - pad }, hi + pad)
    }
}

/// A tick label: `1.5k`, `20M`, `0.25`, `12`.
fn tick(v: &f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let a = v.abs();
    if a >= 1e9 {
        trim(format!("{:.2}", v / 1e9)) + "G"
    } else if a >= 1e6 {
        trim(format!("{:.2}", v / 1e6)) + "M"
    } else if a >= 1e3 {
        trim(format!("{:.2}", v / 1e3)) + "k"
    } else if a >= 1.0 || a == 0.0 {
        trim(format!("{v:.2}"))
    } else {
        trim(format!("{v:.3}"))
    }
}

/// A tick label on a log axis: only at 1, 2 and 5 times a power of ten,
/// so that labels never crowd where the decades narrow.
fn log_tick(v: &f64) -> String {
    if *v <= 0.0 {
        return String::new();
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    if [1.0, 2.0, 5.0, 10.0].iter().any(|m| (mantissa - m).abs() < 1e-6 * m) {
        tick(v)
    } else {
        String::new()
    }
}

/// The key points of a log axis over `lo..=hi`: 1, 2 and 5 times each power
/// of ten in the range, each once, in increasing order.
fn log_key_points(lo: f64, hi: f64) -> Vec<f64> {
    let mut points = Vec::new();
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return points;
    }
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi * (1.0 + 1e-9) {
        for m in [1.0, 2.0, 5.0] {
            let v = m * decade;
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                points.push(v);
            }
        }
        decade *= 10.0;
    }
    points
}

/// Draws `plot` and returns the SVG text. Each series is drawn in order of
/// x, whatever the order of its points.
pub fn line_plot(plot: &LinePlot) -> Result<String, EvalError> {
    let all = || plot.series.iter().flat_map(|s| s.points.iter().copied());
    let marks = plot.marks.iter().map(|m| m.0);
    let (x0, x1) = extent(all().map(|p| p.0).chain(marks), plot.log_log);
    let (y0, y1) = extent(all().map(|p| p.1), plot.log_log);
    if plot.log_log {
        // The key points are given, not left to plotters: its own log key
        // points hold each power of ten twice (the end of one decade and the
        // start of the next), which drew every decade's label twice.
        let xs = (x0..x1).log_scale().with_key_points(log_key_points(x0, x1));
        let ys = (y0..y1).log_scale().with_key_points(log_key_points(y0, y1));
        draw_lines(plot, xs, ys)
    } else {
        draw_lines(plot, x0..x1, y0..y1)
    }
}

fn draw_lines<X, Y>(plot: &LinePlot, xs: X, ys: Y) -> Result<String, EvalError>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(&plot.title, ("sans-serif", 18)).map_err(err)?;
        let (area, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        let mut chart = ChartBuilder::on(&area)
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(80)
            .build_cartesian_2d(xs, ys)
            .map_err(err)?;
        let fmt: &dyn Fn(&f64) -> String = if plot.log_log { &log_tick } else { &tick };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(plot.x_label.as_str())
            .y_desc(plot.y_label.as_str())
            .x_labels(if plot.log_log { 40 } else { 10 })
            .y_labels(if plot.log_log { 40 } else { 10 })
            .x_label_formatter(fmt)
            .y_label_formatter(fmt);
        if plot.log_log {
            // A log axis asked for many key points (so that 1, 2 and 5 of
            // each decade are among them) gets one faint grid line per key
            // point and none between: the default finer lines would pile up
            // into grey bands where the decades narrow.
            mesh.light_line_style(TRANSPARENT).bold_line_style(BLACK.mix(0.12));
        }
        mesh.draw().map_err(err)?;
        let (y_lo, y_hi) = {
            let r = chart.y_range();
            (r.start, r.end)
        };
        for (x, _) in &plot.marks {
            chart
                .draw_series(LineSeries::new(vec![(*x, y_lo), (*x, y_hi)], BLACK.mix(0.5).stroke_width(1)))
                .map_err(err)?;
        }
        let mut entries: Vec<(String, ShapeStyle, bool)> = Vec::new();
        for (i, s) in plot.series.iter().enumerate() {
            let c = color(i);
            let mut points: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!plot.log_log || (x > 0.0 && y > 0.0)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart.draw_series(LineSeries::new(points.clone(), c.stroke_width(2))).map_err(err)?;
            chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled()))).map_err(err)?;
            entries.push((s.name.clone(), c.stroke_width(2), false));
        }
        for (_, label) in &plot.marks {
            entries.push((label.clone(), BLACK.mix(0.5).stroke_width(1), true));
        }
        draw_legend(&legend, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The legend, in its own area right of the plot: one line per entry (a
/// sample of the line, a vertical mark, or a filled box for a bar series,
/// and its label, wrapped to the area's width).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, ShapeStyle, bool)],
) -> Result<(), EvalError> {
    let font = ("sans-serif", 13).into_font();
    let mut y = 60;
    for (label, style, vertical) in entries {
        if *vertical {
            area.draw(&PathElement::new(vec![(10, y - 7), (10, y + 7)], *style)).map_err(err)?;
        } else if style.filled {
            area.draw(&Rectangle::new([(8, y - 5), (22, y + 5)], *style)).map_err(err)?;
        } else {
            area.draw(&PathElement::new(vec![(4, y), (26, y)], *style)).map_err(err)?;
        }
        let mut line = String::new();
        let mut lines = Vec::new();
        for word in label.split(' ') {
            if !line.is_empty() && line.len() + word.len() > 30 {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
        for l in lines {
            area.draw(&Text::new(l, (32, y - 7), font.clone())).map_err(err)?;
            y += 16;
        }
        y += 8;
    }
    Ok(())
}

/// A grouped bar chart: one group of bars per category, one bar per series.
#[derive(Clone, Debug)]
pub struct BarPlot {
    pub title: String,
    pub y_label: String,
    pub categories: Vec<String>,
    /// `(legend, one value per category)`.
    pub series: Vec<(String, Vec<f64>)>,
}

/// Draws `plot` and returns the SVG text.
pub fn bar_plot(plot: &BarPlot) -> Result<String, EvalError> {
    let n = plot.categories.len().max(1);
    let ymax = plot.series.iter().flat_map(|s| s.1.iter().copied()).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let ymax = if ymax > 0.0 { ymax * 1.15 } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(&plot.title, ("sans-serif", 18)).map_err(err)?;
        let (area, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        let mut chart = ChartBuilder::on(&area)
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..ymax)
            .map_err(err)?;
        let categories = plot.categories.clone();
        let label = move |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 0.01 && i >= 0.0 {
                categories.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n * 2 + 1)
            .x_label_formatter(&label)
            .y_label_formatter(&tick)
            .y_desc(plot.y_label.as_str())
            .draw()
            .map_err(err)?;
        let mut entries: Vec<(String, ShapeStyle, bool)> = Vec::new();
        let groups = plot.series.len().max(1) as f64;
        let width = 0.8 / groups;
        for (j, (name, values)) in plot.series.iter().enumerate() {
            let c = color(j);
            let bars = values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(move |(i, &v)| {
                let left = i as f64 - 0.4 + j as f64 * width;
                Rectangle::new([(left, 0.0), (left + width * 0.9, v)], c.filled())
            });
            chart.draw_series(bars).map_err(err)?;
            entries.push((name.clone(), c.filled(), false));
        }
        draw_legend(&legend, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_key_points_are_one_two_five_once_each() {
        assert_eq!(log_key_points(150.0, 1200.0), vec![200.0, 500.0, 1000.0]);
        assert_eq!(log_key_points(1.0, 10.0), vec![1.0, 2.0, 5.0, 10.0]);
        assert!(log_key_points(0.0, 10.0).is_empty());
    }

    /// The tick labels of a log-log plot, read back from its SVG: each is
    /// drawn once (plotters' own log key points drew every power of ten
    /// twice).
    #[test]
    fn log_plot_draws_each_tick_label_once() {
        let plot = LinePlot {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_log: true,
            series: vec![Series { name: "s".into(), points: vec![(50.0, 900.0), (15_000.0, 30_000.0)] }],
            marks: vec![],
        };
        let svg = line_plot(&plot).unwrap();
        let mut labels: Vec<(String, String)> = Vec::new();
        for part in svg.split("<text").skip(1) {
            let attrs = &part[..part.find('>').unwrap()];
            let text = part[part.find('>').unwrap() + 1..part.find("</text>").unwrap()].trim().to_string();
            if text.is_empty() || !text.chars().next().unwrap().is_ascii_digit() {
                continue;
            }
            let pos = |name: &str| {
                let at = attrs.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                attrs[at..at + attrs[at..].find('"').unwrap()].to_string()
            };
            labels.push((format!("{},{}", pos("x"), pos("y")), text));
        }
        assert!(labels.iter().any(|(_, t)| t == "1k"), "{labels:?}");
        let mut seen = std::collections::HashSet::new();
        for l in &labels {
            assert!(seen.insert(l.clone()), "tick label {l:?} drawn twice");
        }
    }
}
