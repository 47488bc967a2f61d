//! PNG charts in the style of the published studies' figures: CPU per GB
//! against packet size (Basler's CPU-load paper), receiving core against
//! throughput, and busiest core against the average (Allied Vision's TCP
//! paper).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::error::{Error, Result};
use crate::report::{Report, HIGHEST_LOSSLESS};
use crate::scenario::Scenario;

/// Where a TrueType font is looked for (Debian's fonts-dejavu-core first).
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Size of every chart, pixels.
const SIZE: (u32, u32) = (960, 600);

/// A row's series: its implementation, and its host setup when the report
/// measured several.
fn series_name(report: &Report, r: &crate::report::Summary) -> String {
    match r.host {
        Some(h) if report.config.several_hosts() => format!("{} ({h})", r.implementation),
        _ => r.implementation.clone(),
    }
}

/// Draws every chart the report has data for into `dir`; returns the files.
pub fn draw_all(report: &Report, dir: &Path) -> Result<Vec<PathBuf>> {
    load_font(dir)?;
    let mut files = Vec::new();
    let series = |sc: Scenario,
                  x: fn(&crate::report::Summary) -> Option<f64>,
                  y: fn(&crate::report::Summary) -> Option<f64>| {
        let mut by_imp: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for r in report
            .rows
            .iter()
            .filter(|r| r.scenario == sc.name() && r.case != HIGHEST_LOSSLESS)
        {
            if let (Some(x), Some(y)) = (x(r), y(r)) {
                by_imp
                    .entry(series_name(report, r))
                    .or_default()
                    .push((x, y));
            }
        }
        for pts in by_imp.values_mut() {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        by_imp
    };
    let sizes = series(
        Scenario::PacketSizes,
        |r| Some(r.case_value),
        |r| r.cpu_s_per_gb,
    );
    if !sizes.is_empty() {
        let path = dir.join("cpu-per-gb-vs-packet-size.png");
        line_chart(
            &path,
            "Receiving CPU per GB against GVSP packet size",
            "packet size (bytes)",
            "receiving core, CPU-seconds per GB",
            &sizes,
        )?;
        files.push(path);
    }
    let sweep = series(
        Scenario::LosslessRate,
        |r| r.gbit_per_s,
        |r| r.receiver_core_pct,
    );
    if !sweep.is_empty() {
        let path = dir.join("receiving-core-vs-throughput.png");
        line_chart(
            &path,
            "Receiving core against throughput, 1024x1024 Mono8, 8000-byte packets",
            "Gbit/s at the host's interface",
            "receiving core busy (%)",
            &sweep,
        )?;
        files.push(path);
    }
    let matrix: Vec<(String, f64, f64)> = report
        .rows
        .iter()
        .filter(|r| r.scenario == Scenario::UdpTcp.name())
        .filter_map(|r| Some((series_name(report, r), r.busiest_core_pct?, r.cpu_avg_pct?)))
        .collect();
    if !matrix.is_empty() {
        let matrix_case = report
            .rows
            .iter()
            .find(|r| r.scenario == Scenario::UdpTcp.name())
            .map(|r| r.case.clone())
            .unwrap_or_default();
        let path = dir.join("busiest-vs-average-core.png");
        bar_chart(
            &path,
            &format!("One camera, {matrix_case}: busiest core against the average"),
            &matrix,
        )?;
        files.push(path);
    }
    Ok(files)
}

fn chart_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Chart {
        path: path.to_owned(),
        detail: e.to_string(),
    }
}

fn load_font(dir: &Path) -> Result<()> {
    static LOADED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let bytes = FONT_PATHS
                .iter()
                .find_map(|p| std::fs::read(p).ok())
                .ok_or_else(|| {
                    format!(
                        "no TrueType font found (looked for {}); install fonts-dejavu-core",
                        FONT_PATHS.join(", ")
                    )
                })?;
            // The font lives as long as the process: charts may be drawn again.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| "the font file is not a TrueType font".to_owned())
        })
        .clone()
        .map_err(|e| chart_err(dir, e))
}

fn palette(i: usize) -> RGBColor {
    const COLOURS: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    COLOURS[i % COLOURS.len()]
}

fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &BTreeMap<String, Vec<(f64, f64)>>,
) -> Result<()> {
    let pts = series.values().flatten();
    let x_max = pts.clone().map(|p| p.0).fold(0.0_f64, f64::max) * 1.08;
    let y_max = pts.map(|p| p.1).fold(0.0_f64, f64::max) * 1.15;
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_err(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(0.0..x_max.max(1e-9), 0.0..y_max.max(1e-9))
        .map_err(|e| chart_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_err(path, e))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let colour = palette(i);
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))
            .map_err(|e| chart_err(path, e))?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(|e| chart_err(path, e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_err(path, e))?;
    root.present().map_err(|e| chart_err(path, e))
}

fn bar_chart(path: &Path, title: &str, bars: &[(String, f64, f64)]) -> Result<()> {
    let n = bars.len();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_err(path, e))?;
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..105.0)
        .map_err(|e| chart_err(path, e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 0.01 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("CPU busy (%)")
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_err(path, e))?;
    let busiest = palette(3);
    let average = palette(0);
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let x = i as f64;
            Rectangle::new([(x - 0.35, 0.0), (x - 0.02, b.1)], busiest.filled())
        }))
        .map_err(|e| chart_err(path, e))?
        .label("busiest core")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], busiest.filled()));
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let x = i as f64;
            Rectangle::new([(x + 0.02, 0.0), (x + 0.35, b.2)], average.filled())
        }))
        .map_err(|e| chart_err(path, e))?
        .label("average of all cores")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], average.filled()));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(|e| chart_err(path, e))?;
    root.present().map_err(|e| chart_err(path, e))
}
