//! SVG charts (plotters, SVG backend; no fonts or external tools needed:
//! the viewer draws the text).

use crate::sweep::{format_value, ParamKind, SweepResult, SweepRow};
use plotters::prelude::*;

const WIDTH: u32 = 860;
const HEIGHT: u32 = 520;
const RECALL: RGBColor = RGBColor(31, 119, 180);
const PRECISION: RGBColor = RGBColor(44, 160, 44);
const COMPLETE: RGBColor = RGBColor(148, 103, 189);
const WRONG: RGBColor = RGBColor(214, 39, 40);
const DEFAULT: RGBColor = RGBColor(110, 110, 110);
const SUGGESTED: RGBColor = RGBColor(230, 120, 0);

/// Reads one ratio of a sweep row.
type RatioOf = fn(&SweepRow) -> Option<f64>;

/// A sweep as a line chart: recall, precision and the share of complete
/// posts (left axis, 0–1) and wrong-sense entries (right axis, a count)
/// against the parameter's value; the default value is a dashed line.
pub fn sweep_svg(result: &SweepResult) -> Result<String, ChartError> {
    let mut svg = String::new();
    draw(result, &mut svg).map_err(|e| ChartError(e.to_string()))?;
    Ok(svg)
}

/// plotters could not draw a chart (its errors are not `Send`, so the
/// message is kept).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the chart: {0}")]
pub struct ChartError(String);

fn draw(result: &SweepResult, svg: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    let rows = &result.rows;
    let xs: Vec<f64> = rows.iter().map(|r| r.value).collect();
    let (mut x0, mut x1) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 - x0 < 1e-9 {
        let pad = if result.kind == ParamKind::Integer {
            1.0
        } else {
            0.05
        };
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    let max_wrong = rows.iter().map(|r| r.counts.wrong_sense).max().unwrap_or(0);
    let y2_top = (max_wrong.max(1) as f64 * 1.15).ceil();
    let posts = rows.first().map_or(0, |r| r.counts.posts);

    let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let caption = format!(
        "{}: {} sweep on the {} split ({} posts)",
        result.retriever, result.param, result.split, posts
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .right_y_label_area_size(56)
        .build_cartesian_2d(x0..x1, 0f64..1.02f64)?
        .set_secondary_coord(x0..x1, 0f64..y2_top);
    let integer = result.kind == ParamKind::Integer;
    chart
        .configure_mesh()
        .x_desc(result.param.as_str())
        .y_desc("recall, precision, complete (share)")
        .x_label_formatter(&|v| {
            if integer {
                format!("{v:.0}")
            } else {
                format_value((v * 1e4).round() / 1e4)
            }
        })
        .y_label_formatter(&|v| format!("{v:.1}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("wrong-sense entries (count)")
        .y_labels((y2_top as usize + 1).min(11))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;

    let ratio_series: [(&str, RGBColor, RatioOf); 3] = [
        ("recall", RECALL, |r| r.recall),
        ("precision", PRECISION, |r| r.precision),
        ("complete", COMPLETE, |r| r.complete_rate),
    ];
    for (name, color, get) in ratio_series {
        let points: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| get(r).map(|y| (r.value, y)))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(
            points
                .into_iter()
                .map(|p| Circle::new(p, 3, color.filled())),
        )?;
    }
    let wrong: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r.value, r.counts.wrong_sense as f64))
        .collect();
    chart
        .draw_secondary_series(LineSeries::new(wrong.clone(), WRONG.stroke_width(2)))?
        .label("wrong sense (right axis)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], WRONG.stroke_width(2)));
    chart.draw_secondary_series(wrong.into_iter().map(|p| Circle::new(p, 3, WRONG.filled())))?;

    let d = result.default;
    if d >= x0 - 1e-9 && d <= x1 + 1e-9 {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(d, 0.0), (d, 1.02)],
                6,
                4,
                DEFAULT.stroke_width(1),
            ))?
            .label(format!("default {}", format_value(d)))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], DEFAULT.stroke_width(1)));
    }
    // The value the sweep suggests (what `glossa sweep` prints to try on
    // test), when the figures moved at all.
    if let Some(best) = result.suggested().filter(|_| !result.flat()) {
        let v = best.value;
        chart
            .draw_series(LineSeries::new(
                vec![(v, 0.0), (v, 1.02)],
                SUGGESTED.stroke_width(2),
            ))?
            .label(format!("suggested {}", format_value(v)))
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], SUGGESTED.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::Params;
    use crate::score::Counts;

    fn row(value: f64, found: usize, wrong: usize) -> SweepRow {
        let counts = Counts {
            posts: 4,
            complete: found.min(4),
            needed: 6,
            found,
            retrieved: found + wrong,
            extra: wrong,
            wrong_sense: wrong,
        };
        SweepRow::new(value, counts)
    }

    fn result(rows: Vec<SweepRow>) -> SweepResult {
        SweepResult {
            glossary: "g".into(),
            posts_file: "p<&>.jsonl".into(),
            labels_file: "l.jsonl".into(),
            split: "dev".into(),
            retriever: "normalised+fuzzy|sense".into(),
            param: "threshold".into(),
            kind: ParamKind::Real,
            default: 0.75,
            params: Params::default(),
            glossa_version: "0".into(),
            rows,
            chart: None,
        }
    }

    #[test]
    fn a_sweep_chart_is_well_formed_svg_with_its_labels() {
        let svg = sweep_svg(&result(vec![
            row(0.5, 6, 3),
            row(0.75, 5, 1),
            row(1.0, 2, 0),
        ]))
        .unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let texts: Vec<String> = doc
            .descendants()
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_string())
            .collect();
        for want in [
            "recall",
            "precision",
            "complete",
            "wrong sense (right axis)",
            "default 0.75",
            "threshold",
        ] {
            assert!(texts.iter().any(|t| t == want), "no {want:?} in {texts:?}");
        }
    }

    #[test]
    fn the_suggested_value_is_marked_beside_the_default() {
        let mut r = result(vec![row(0.5, 6, 3), row(0.75, 5, 1), row(1.0, 2, 0)]);
        r.default = 0.5;
        let svg = sweep_svg(&r).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let texts: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(texts.contains(&"suggested 0.75"), "{texts:?}");
        assert!(texts.contains(&"default 0.5"), "{texts:?}");
        // Flat figures suggest nothing.
        let flat = result(vec![row(0.5, 4, 1), row(0.75, 4, 1)]);
        let svg = sweep_svg(&flat).unwrap();
        assert!(!svg.contains("suggested"), "{svg}");
    }

    #[test]
    fn a_single_value_still_draws() {
        let svg = sweep_svg(&result(vec![row(0.8, 6, 0)])).unwrap();
        roxmltree::Document::parse(&svg).unwrap();
    }
}
