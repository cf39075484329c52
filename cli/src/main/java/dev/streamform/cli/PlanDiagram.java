package dev.streamform.cli;

import static dev.streamform.teststreams.report.Markup.num;

import dev.streamform.policies.plan.Plan;
import dev.streamform.teststreams.report.Markup;
import java.util.List;

/**
 * A model's {@link Plan} drawn for {@code streamform explain --format dot|svg}: one box per node,
 * from the Source with its clock down to the Aggregate with its fingerprint, each with the same
 * lines as the text plan, joined by arrows. {@link #dot} is Graphviz's language; {@link #svg} is
 * drawn here (the plan is a chain, so it needs no layout engine), so no Graphviz is needed.
 */
final class PlanDiagram {
  private static final int LINE = 16;
  private static final double CHAR = 6.8; // 11px monospace
  private static final int GAP = 34;

  private PlanDiagram() {}

  /** The plan as a Graphviz digraph, a box per node, its lines left-aligned. */
  static String dot(Plan plan, String model) {
    StringBuilder b = new StringBuilder("digraph \"" + escape(model) + "\" {\n");
    b.append("  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    List<List<String>> nodes = plan.nodes();
    for (int i = 0; i < nodes.size(); i++) {
      List<String> node = nodes.get(i);
      StringBuilder label = new StringBuilder(escape(node.get(0))).append("\\l");
      node.subList(1, node.size()).forEach(l -> label.append(escape(l)).append("\\l"));
      b.append("  n")
          .append(i)
          .append(" [label=\"")
          .append(label)
          .append("\"")
          .append(i == 0 ? ", style=bold" : "")
          .append("];\n");
    }
    for (int i = 1; i < nodes.size(); i++) {
      b.append("  n").append(i - 1).append(" -> n").append(i).append(";\n");
    }
    return b.append("}\n").toString();
  }

  /** The plan as a standalone SVG: boxes top to bottom, arrows between them. */
  static String svg(Plan plan) {
    List<List<String>> nodes = plan.nodes();
    int longest = nodes.stream().flatMap(List::stream).mapToInt(String::length).max().orElse(10);
    double boxWidth = longest * CHAR + 24;
    double height = 16;
    for (List<String> node : nodes) {
      height += node.size() * LINE + 12 + GAP;
    }
    Markup m = new Markup();
    m.open(
        "svg",
        "xmlns",
        "http://www.w3.org/2000/svg",
        "class",
        "plan",
        "width",
        num(boxWidth + 32),
        "height",
        num(height - GAP + 16),
        "viewBox",
        "0 0 " + num(boxWidth + 32) + " " + num(height - GAP + 16));
    m.element(
        "style",
        "text{font:11px monospace;fill:#222}text.kind{font-weight:bold}"
            + "rect{fill:#f7f7f7;stroke:#444}line{stroke:#444;stroke-width:1.5}");
    double y = 16;
    for (int i = 0; i < nodes.size(); i++) {
      List<String> node = nodes.get(i);
      double h = node.size() * LINE + 12;
      if (i > 0) {
        double mid = 16 + boxWidth / 2;
        m.empty("line", "x1", num(mid), "x2", num(mid), "y1", num(y - GAP), "y2", num(y - 4));
        m.empty(
            "polygon",
            "points",
            num(mid - 5)
                + ","
                + num(y - 10)
                + " "
                + num(mid + 5)
                + ","
                + num(y - 10)
                + " "
                + num(mid)
                + ","
                + num(y - 2),
            "style",
            "fill:#444");
      }
      m.open("g", "class", "node", "data-kind", node.get(0));
      m.empty("rect", "x", "16", "y", num(y), "width", num(boxWidth), "height", num(h), "rx", "4");
      for (int l = 0; l < node.size(); l++) {
        m.element(
            "text",
            node.get(l),
            "class",
            l == 0 ? "kind" : null,
            "x",
            num(l == 0 ? 26 : 38),
            "y",
            num(y + 18 + l * LINE));
      }
      m.close();
      y += h + GAP;
    }
    m.close();
    return m.toString();
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
