//! Prints, for every text file under the given directories, the features of ctx's calibrated
//! estimate, the exact o200k_base count and ctx's current estimate, as CSV. scripts/budget-calibrate.py fits the per-class
//! weights of src/budget/estimate.rs from this output.
//!
//!   cargo run --release --example budget_calibrate -- DIR... > features.csv

use std::path::Path;

use ctxkit::budget::bpe::Encoding;
use ctxkit::budget::estimate::{self, ContentClass, FEATURES, Family, Histogram};
use rayon::prelude::*;

fn main() {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    for dir in &dirs {
        for entry in ignore::WalkBuilder::new(dir)
            .hidden(false)
            .build()
            .flatten()
        {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                files.push(entry.into_path());
            }
        }
    }
    let rows: Vec<String> = files.par_iter().filter_map(|path| row(path)).collect();
    println!("path,class,bytes,o200k,shipped,{}", FEATURES.join(","));
    for row in rows {
        println!("{row}");
    }
}

fn row(path: &Path) -> Option<String> {
    // Source maps (JSON wrapped around base64 VLQ and whole sources) are build output, rarely in
    // what people budget, and unlike anything else: they are left out of the fit.
    if path.extension().is_some_and(|e| e == "map") {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if bytes.is_empty() || bytes.len() > 2_000_000 || bytes[..bytes.len().min(8000)].contains(&0) {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut histogram = Histogram::default();
    histogram.add(text.as_bytes());
    let hint = ContentClass::from_path(path);
    let class: ContentClass = histogram.classify(hint);
    let tokens = Encoding::O200k.count(&text);
    // What ctx itself estimates today, so that the shipped weights are measured, not only a refit.
    let shipped = estimate::estimate(&histogram, hint, Family::Other);
    let features: Vec<String> = histogram.features().iter().map(|f| f.to_string()).collect();
    let name = path.display().to_string().replace(',', "_");
    Some(format!(
        "{name},{},{},{tokens},{shipped},{}",
        class.name(),
        text.len(),
        features.join(",")
    ))
}
