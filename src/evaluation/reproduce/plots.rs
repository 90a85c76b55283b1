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
}

const SIZE: (u32, u32) = (820, 480);

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
        (lo / 1.5, hi * 1.5)
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

/// Draws `plot` and returns the SVG text.
pub fn line_plot(plot: &LinePlot) -> Result<String, EvalError> {
    let all = || plot.series.iter().flat_map(|s| s.points.iter().copied());
    let (x0, x1) = extent(all().map(|p| p.0), plot.log_log);
    let (y0, y1) = extent(all().map(|p| p.1), plot.log_log);
    if plot.log_log {
        draw_lines(plot, (x0..x1).log_scale(), (y0..y1).log_scale())
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
        let mut chart = ChartBuilder::on(&root)
            .caption(&plot.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(80)
            .build_cartesian_2d(xs, ys)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(plot.x_label.as_str())
            .y_desc(plot.y_label.as_str())
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()
            .map_err(err)?;
        for (i, s) in plot.series.iter().enumerate() {
            let c = color(i);
            let points: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!plot.log_log || (x > 0.0 && y > 0.0)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .map_err(err)?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
            chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled()))).map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
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
        let mut chart = ChartBuilder::on(&root)
            .caption(&plot.title, ("sans-serif", 18))
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
        let groups = plot.series.len().max(1) as f64;
        let width = 0.8 / groups;
        for (j, (name, values)) in plot.series.iter().enumerate() {
            let c = color(j);
            let bars = values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(move |(i, &v)| {
                let left = i as f64 - 0.4 + j as f64 * width;
                Rectangle::new([(left, 0.0), (left + width * 0.9, v)], c.filled())
            });
            chart
                .draw_series(bars)
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
