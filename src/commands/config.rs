//! `ctx config`: every setting with its value and source.

use crate::app::Context;
use crate::cli::GlobalArgs;
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::output::{ColorChoice, Style};
use crate::project::Source;
use crate::settings::{self, ConfigDoc, Def, Global, SettingDoc, SettingsFile};
use crate::text::visible_line;

/// One row: a setting resolved, or the error its configured value gave.
struct Row {
    def: &'static Def,
    resolved: Result<settings::Resolved>,
}

pub fn run(ctx: &mut Context, global: &GlobalArgs, key: Option<&str>) -> Result<ExitCode> {
    let config = ctx.project.config()?;
    let root = Global {
        value: ctx.project.root.display().to_string(),
        source: global.origins.root,
        detail: match global.origins.root {
            Source::Env => Some("CTX_ROOT".to_string()),
            Source::Default => Some(format!("discovered: {}", ctx.project.marker.describe())),
            _ => None,
        },
        marker: Some(ctx.project.marker.name()),
    };
    let stray_state = crate::app::stray::stray_state(&ctx.project);
    let color = color_setting(global);
    let selected: Vec<&'static Def> = match key {
        None => settings::ALL.to_vec(),
        Some("root") | Some("color") => Vec::new(),
        Some(key) => vec![
            settings::ALL
                .iter()
                .copied()
                .find(|def| def.key == key)
                .ok_or_else(|| {
                    Error::failure(format!("unknown setting `{key}`"))
                        .with_hint("`ctx config` lists every setting")
                })?,
        ],
    };
    let swarm = if selected.iter().any(|def| def.swarm_key.is_some()) {
        ctx.swarm_config().context_budget
    } else {
        None
    };
    let resolved = ctx.settings()?;
    let rows: Vec<Row> = selected
        .into_iter()
        .map(|def| Row {
            def,
            resolved: resolved.with(def, None, swarm.as_ref()),
        })
        .collect();

    for (file, scope) in [(&config.project, "project"), (&config.user, "user")] {
        if let Some(file) = file {
            for unknown in settings::unknown_keys(&file.table) {
                ctx.out.warn(&format!(
                    "{}: `{unknown}` is not a ctx setting ({scope} settings file); ignored",
                    file.path.display()
                ));
            }
        }
    }

    let mut files = vec![SettingsFile {
        scope: "project",
        path: config.project_path.display().to_string(),
        exists: config.project.is_some(),
    }];
    if let Some(path) = &config.user_path {
        files.push(SettingsFile {
            scope: "user",
            path: path.display().to_string(),
            exists: config.user.is_some(),
        });
    }
    if let Some(stray) = &stray_state {
        crate::app::stray::point_to_stray_state(ctx, stray);
    }
    if ctx.out.json {
        let doc = ConfigDoc {
            version: Version,
            root,
            color,
            files,
            settings: rows.iter().map(setting_doc).collect(),
            stray_state,
        };
        ctx.out.json_doc(&doc)?;
    } else if let Some(key) = key {
        match key {
            "root" => ctx.out.line(&visible_line(&root.value))?,
            "color" => ctx.out.line(&color.value)?,
            _ => {
                if let Ok(resolved) = &rows[0].resolved {
                    ctx.out.line(&visible_line(&plain(&resolved.value)))?;
                }
            }
        }
    } else {
        print_listing(ctx, &root, &color, &files, &rows)?;
    }
    match rows.into_iter().find_map(|row| row.resolved.err()) {
        Some(err) => Err(err),
        None => Ok(ExitCode::Success),
    }
}

fn color_setting(global: &GlobalArgs) -> Global {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    let name = |choice: ColorChoice| {
        clap::ValueEnum::to_possible_value(&choice)
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    };
    if global.origins.color == Source::Flag || global.color != ColorChoice::Auto {
        return Global {
            value: name(global.color),
            source: Source::Flag,
            detail: None,
            marker: None,
        };
    }
    for (var, choice) in [
        ("NO_COLOR", ColorChoice::Never),
        ("CLICOLOR_FORCE", ColorChoice::Always),
    ] {
        if set(var) {
            return Global {
                value: name(choice),
                source: Source::Env,
                detail: Some(var.to_string()),
                marker: None,
            };
        }
    }
    if crate::output::dumb_terminal() {
        return Global {
            value: name(ColorChoice::Never),
            source: Source::Env,
            detail: Some("TERM=dumb".to_string()),
            marker: None,
        };
    }
    Global {
        value: name(ColorChoice::Auto),
        source: Source::Default,
        detail: None,
        marker: None,
    }
}

fn setting_doc(row: &Row) -> SettingDoc {
    let (value, source, detail) = match &row.resolved {
        Ok(r) => (to_json(&r.value), r.source, r.detail.clone()),
        Err(_) => (serde_json::Value::Null, Source::Default, None),
    };
    SettingDoc {
        key: row.def.key,
        value,
        source,
        detail,
        env: row.def.env,
        default: to_json(&settings::default_value(row.def)),
        about: row.def.about,
    }
}

fn to_json(value: &toml::Value) -> serde_json::Value {
    match value {
        toml::Value::Integer(n) => (*n).into(),
        toml::Value::Float(f) => {
            serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into)
        }
        toml::Value::Boolean(b) => (*b).into(),
        toml::Value::String(s) => s.clone().into(),
        other => other.to_string().into(),
    }
}

/// A value as a script wants it: strings without quotes.
fn plain(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `key = value  # source (detail)`, one setting a line, aligned.
fn print_listing(
    ctx: &mut Context,
    root: &Global,
    color: &Global,
    files: &[SettingsFile],
    rows: &[Row],
) -> Result<()> {
    let origin = |source: Source, detail: &Option<String>| match detail {
        Some(detail) => format!("{source}: {detail}"),
        None => source.to_string(),
    };
    // Paths and values come from the environment and the files: nothing in them may act on the
    // terminal.
    let dim = |ctx: &Context, text: &str| ctx.out.paint(Style::Dim, &visible_line(text));
    let line = dim(
        ctx,
        &format!(
            "# root: {} ({})",
            root.value,
            origin(root.source, &root.detail)
        ),
    );
    ctx.out.line(&line)?;
    let line = dim(
        ctx,
        &format!(
            "# color: {} ({})",
            color.value,
            origin(color.source, &color.detail)
        ),
    );
    ctx.out.line(&line)?;
    for file in files {
        let state = if file.exists { "" } else { " (not present)" };
        let line = dim(
            ctx,
            &format!("# {} settings: {}{state}", file.scope, file.path),
        );
        ctx.out.line(&line)?;
    }
    let assignments: Vec<String> = rows
        .iter()
        .map(|row| match &row.resolved {
            Ok(r) => format!("{} = {}", row.def.key, visible_line(&r.value.to_string())),
            Err(_) => format!("{} = <invalid>", row.def.key),
        })
        .collect();
    let width = assignments.iter().map(|a| a.len()).max().unwrap_or(0);
    for (row, assignment) in rows.iter().zip(&assignments) {
        let comment = match &row.resolved {
            Ok(r) => format!("# {}", origin(r.source, &r.detail)),
            Err(_) => "# see the error below".to_string(),
        };
        let line = format!("{assignment:width$}  {}", dim(ctx, &comment));
        ctx.out.line(&line)?;
    }
    Ok(())
}
