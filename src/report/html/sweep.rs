//! The HTML report of a sweep result: its table and its chart.

use crate::sweep::SweepResult;

/// The page of a sweep: the table and the chart (an SVG `data:` image).
pub fn sweep_page(result: &SweepResult, shown: &str) -> String {
    let facts = vec![
        ("Result", shown.to_string()),
        ("Retriever", result.retriever.clone()),
        ("Parameter", result.param.clone()),
        ("Glossary", result.glossary.clone()),
        ("Posts", result.posts_file.clone()),
        ("Labels", result.labels_file.clone()),
        ("Split", result.split.clone()),
        ("glossa", result.glossa_version.clone()),
    ];
    let mut body = super::section(
        "summary",
        "Summary",
        &super::table(&crate::report::sweep::table(result)),
    );
    let chart = match crate::report::chart::sweep_svg(result) {
        Ok(svg) => format!(
            "<img class=\"chart\" src=\"{}\" alt=\"{}\">\n",
            super::data_url("image/svg+xml", svg.as_bytes()),
            super::escape(&format!(
                "Recall, precision and complete posts of {} at each value of {} (the table above holds the numbers)",
                result.retriever, result.param
            ))
        ),
        Err(e) => format!(
            "<p class=\"note\">No chart: {}</p>\n",
            super::escape(&e.to_string())
        ),
    };
    body.push_str(&super::section("chart", "Chart", &chart));
    super::document("glossa sweep report", &facts, &body)
}
