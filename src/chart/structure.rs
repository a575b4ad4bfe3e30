//! What a plot shows, read back from its SVG: titles, axes with their tick
//! labels, legends, series with their point counts, bars. Tests snapshot
//! this outline instead of the SVG's bytes, and [`layout_problems`] checks
//! a scene's text stays on the canvas and off other text.

use super::panel::overlap;
use super::scene::{Item, Scene};

/// Undoes [`super::scene::xml`].
fn unescape(t: &str) -> String {
    t.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

/// One group of the outline being built.
struct Node {
    class: String,
    label: String,
    texts: Vec<(String, String)>,
    points: usize,
    segments: usize,
    children: Vec<String>,
}

/// The outline of an SVG that [`super::Scene::to_svg`] wrote: one line
/// per group, indented by nesting, with its texts grouped by class and
/// its points counted (a bar's segments are not: which stall reasons
/// have a share is the data's business, not the layout's).
pub fn outline(svg: &str) -> String {
    let mut stack: Vec<Node> = vec![Node {
        class: "svg".into(),
        label: String::new(),
        texts: Vec::new(),
        points: 0,
        segments: 0,
        children: Vec::new(),
    }];
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        let Some(close) = rest.find('>') else { break };
        let tag = &rest[..=close];
        rest = &rest[close + 1..];
        if tag.starts_with("<g ") {
            stack.push(Node {
                class: attr(tag, "class").unwrap_or("").to_string(),
                label: unescape(attr(tag, "data-label").unwrap_or("")),
                texts: Vec::new(),
                points: 0,
                segments: 0,
                children: Vec::new(),
            });
        } else if tag == "</g>" {
            let node = stack.pop().expect("balanced groups");
            let text = render(&node);
            if let Some(parent) = stack.last_mut() {
                parent.children.push(text);
            }
        } else if tag.starts_with("<text ") {
            let end = rest.find("</text>").unwrap_or(rest.len());
            let content = unescape(&rest[..end]);
            let class = attr(tag, "class").unwrap_or("").to_string();
            if let Some(node) = stack.last_mut() {
                node.texts.push((class, content));
            }
        } else if !tag.starts_with("</")
            && let Some(node) = stack.last_mut()
        {
            match attr(tag, "class") {
                Some("point") => node.points += 1,
                Some("segment") => node.segments += 1,
                _ => {}
            }
        }
    }
    stack
        .pop()
        .map(|root| root.children.join(""))
        .unwrap_or_default()
}

fn render(node: &Node) -> String {
    let mut out = format!("{}: {}", node.class, node.label);
    if node.points > 0 {
        out.push_str(&format!(" ({} points)", node.points));
    }
    if node.segments > 0 && node.class != "bar" {
        out.push_str(&format!(" ({} segments)", node.segments));
    }
    out.push('\n');
    let mut classes: Vec<&str> = Vec::new();
    for (c, t) in &node.texts {
        // The group's own name, said once.
        if !classes.contains(&c.as_str()) && *t != node.label {
            classes.push(c);
        }
    }
    for c in classes {
        let texts: Vec<&str> = node
            .texts
            .iter()
            .filter(|(k, t)| k == c && *t != node.label)
            .map(|(_, t)| t.as_str())
            .collect();
        out.push_str(&format!("  {c}: {}\n", texts.join(" | ")));
    }
    for child in &node.children {
        for line in child.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every text that leaves the canvas, every two texts that overlap and
/// every text on a data point, by the font's measure: empty when the
/// layout is clean.
pub fn layout_problems(scene: &Scene) -> Vec<String> {
    let boxes = scene.text_boxes();
    let mut problems = Vec::new();
    for b in &boxes {
        let (l, t, r, bt) = b.rect;
        if l < 0.0 || t < 0.0 || r > scene.width || bt > scene.height {
            problems.push(format!(
                "`{}` ({}) leaves the {}x{} canvas: {:?}",
                b.text, b.class, scene.width, scene.height, b.rect
            ));
        }
    }
    // Data points must stay visible: no text may sit on one.
    for item in &scene.items {
        if let Item::Mark {
            x,
            y,
            r,
            tip: Some(tip),
            ..
        } = item
        {
            let mark = (x - r, y - r, x + r, y + r);
            for b in &boxes {
                let (l, t, rt, bt) = b.rect;
                if overlap(mark, (l + 0.5, t + 2.0, rt - 0.5, bt - 2.0)) {
                    problems.push(format!(
                        "`{}` ({}) covers the point `{tip}`",
                        b.text, b.class
                    ));
                }
            }
        }
    }
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            // A line's box is taller than its ink: allow 2 pixels.
            let shrink = |r: (f64, f64, f64, f64)| (r.0 + 0.5, r.1 + 2.0, r.2 - 0.5, r.3 - 2.0);
            if overlap(shrink(a.rect), shrink(b.rect)) {
                problems.push(format!(
                    "`{}` ({}) overlaps `{}` ({})",
                    a.text, a.class, b.text, b.class
                ));
            }
        }
    }
    problems
}
