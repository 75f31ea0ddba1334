//! A token budget as a flame graph (`ctx budget estimate --format svg`): folders above their
//! files, width by tokens, colour by what a file's name says it holds, the full width the
//! model's context window (or the total, when more), and the warn, critical and limit lines.

use super::doc::EstimateDoc;
use super::estimate::ContentClass;
use super::render::thousands;
use crate::flamegraph::{Graph, Mark, Node, Swatch};

const FOLDER: usize = 0;
const OTHER: usize = 1;

/// Legend order: folders, files of no known class, then each class.
fn swatches() -> Vec<Swatch> {
    let mut legend = vec![
        Swatch {
            label: "folder".into(),
            fill: "#c9c3b8",
        },
        Swatch {
            label: "other file".into(),
            fill: "#9fb3c8",
        },
    ];
    for (class, fill) in CLASSES {
        legend.push(Swatch {
            label: class.name().into(),
            fill,
        });
    }
    legend
}

const CLASSES: [(ContentClass, &str); 6] = [
    (ContentClass::Code, "#f28e2b"),
    (ContentClass::Prose, "#59a14f"),
    (ContentClass::Data, "#4e79a7"),
    (ContentClass::Lockfile, "#b07aa1"),
    (ContentClass::Encoded, "#e15759"),
    (ContentClass::Hex, "#ff9da7"),
];

fn swatch_of(path: &str) -> usize {
    match ContentClass::from_path(std::path::Path::new(path)) {
        Some(class) => 2 + CLASSES.iter().position(|(c, _)| *c == class).unwrap_or(0),
        None => OTHER,
    }
}

/// The picture of an estimate's items.
pub fn graph(doc: &EstimateDoc) -> Graph {
    // The folder tree: node 0 is the root; folders are found by (parent, name).
    // A folder's details start as its path; its totals are added once its files are in.
    let mut nodes = vec![Node {
        label: "all inputs".into(),
        details: "all inputs".into(),
        value: 0,
        swatch: FOLDER,
        children: Vec::new(),
        marked: false,
    }];
    let mut folders: std::collections::HashMap<(usize, String), usize> = Default::default();
    for item in &doc.items {
        let mut parent = 0;
        let parts: Vec<&str> = item.path.split('/').filter(|p| !p.is_empty()).collect();
        let (file, dirs) = parts
            .split_last()
            .map_or((item.path.as_str(), &[][..]), |(f, d)| (*f, d));
        for (depth, dir) in dirs.iter().enumerate() {
            let key = (parent, (*dir).to_string());
            parent = match folders.get(&key) {
                Some(&folder) => folder,
                None => {
                    nodes.push(Node {
                        label: format!("{dir}/"),
                        details: format!("{}/", dirs[..=depth].join("/")),
                        value: 0,
                        swatch: FOLDER,
                        children: Vec::new(),
                        marked: false,
                    });
                    let folder = nodes.len() - 1;
                    nodes[parent].children.push(folder);
                    folders.insert(key, folder);
                    folder
                }
            };
        }
        nodes.push(Node {
            label: file.to_string(),
            details: format!(
                "{}\n{} tokens · {} bytes",
                item.path,
                thousands(item.tokens),
                thousands(item.bytes)
            ),
            value: item.tokens,
            swatch: swatch_of(&item.path),
            children: Vec::new(),
            marked: false,
        });
        let file = nodes.len() - 1;
        nodes[parent].children.push(file);
    }
    // Folders' values from their files, children before parents (folders are created after
    // their parent, so in reverse creation order).
    for i in (0..nodes.len()).rev() {
        if !nodes[i].children.is_empty() {
            nodes[i].value = nodes[i].children.iter().map(|&c| nodes[c].value).sum();
        }
    }
    for node in nodes.iter_mut().filter(|n| n.swatch == FOLDER) {
        let entries = node.children.len();
        node.details.push_str(&format!(
            "\n{} tokens · {entries} {} directly inside",
            thousands(node.value),
            if entries == 1 { "entry" } else { "entries" }
        ));
    }
    // Biggest first, then by name: the folders that eat the window are on the left.
    let order: Vec<(u64, String)> = nodes.iter().map(|n| (n.value, n.label.clone())).collect();
    for node in &mut nodes {
        node.children.sort_by(|&a, &b| {
            order[b]
                .0
                .cmp(&order[a].0)
                .then_with(|| order[a].1.cmp(&order[b].1))
        });
    }

    let limit = doc.limit.context;
    let share = |f: f64| (f * limit as f64).round() as u64;
    let percent = 100.0 * doc.usage;
    Graph {
        title: format!(
            "Token budget: {} of {} context tokens ({percent:.1}%, {})",
            thousands(doc.total_tokens),
            thousands(limit),
            doc.level
        ),
        subtitle: format!(
            "width: tokens ({}{}) · full width: {} · colour: what the file name says it holds",
            doc.tokenizer,
            if doc.exact {
                ", exact"
            } else {
                ", an estimate"
            },
            if doc.total_tokens > limit {
                "the total, over the limit"
            } else {
                "the model's context window"
            }
        ),
        roots: if nodes[0].value > 0 {
            vec![0]
        } else {
            Vec::new()
        },
        nodes,
        legend: swatches(),
        scale: Some(limit),
        marks: vec![
            Mark {
                value: share(doc.thresholds.warn),
                label: format!("warn {:.0}%", 100.0 * doc.thresholds.warn),
                colour: "#b8860b",
            },
            Mark {
                value: share(doc.thresholds.critical),
                label: format!("critical {:.0}%", 100.0 * doc.thresholds.critical),
                colour: "#c0392b",
            },
            Mark {
                value: limit,
                label: format!("limit {}", thousands(limit)),
                colour: "#333",
            },
        ],
        notes: if doc.skipped.is_empty() {
            Vec::new()
        } else {
            vec![format!(
                "{} {} skipped (binary or unreadable); ctx budget estimate lists them",
                doc.skipped.len(),
                if doc.skipped.len() == 1 {
                    "input"
                } else {
                    "inputs"
                }
            )]
        },
        every_box: false,
    }
}
