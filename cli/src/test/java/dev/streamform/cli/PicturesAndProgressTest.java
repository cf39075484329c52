package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code explain --format dot|svg}, {@code test --report} and the progress line as a user meets
 * them: the drawn plan holds every line of the text plan in its nodes' order, the report is
 * written, and nothing but results reaches a captured (non-terminal) output.
 */
class PicturesAndProgressTest {
  private static final Path TIME = Path.of("../test-streams/fixtures/time");

  private String out;
  private String err;

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = Streamform.run(new PrintWriter(o), new PrintWriter(e), args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  /** The text plan as nodes: each a kind line and its attribute lines. */
  private List<List<String>> textPlan(String project, String model) {
    assertThat(err, run("explain", TIME.resolve(project).toString(), model), is(0));
    List<List<String>> nodes = new java.util.ArrayList<>();
    // the plan's nodes: the text up to the blank line before the applied steps
    for (String line : out.split("\n\n", 2)[0].split("\n")) {
      if (line.trim().equals("↓")) {
        continue;
      }
      if (!line.startsWith(" ")) {
        nodes.add(new java.util.ArrayList<>());
      }
      nodes.get(nodes.size() - 1).add(line.trim());
    }
    return nodes;
  }

  @Test
  void explainAsSvgDrawsEachNodeOfThePlanTopToBottomWithItsLines() throws Exception {
    List<List<String>> plan = textPlan("hourly-revenue", "hourly_revenue");
    assertThat(
        err,
        run(
            "explain",
            TIME.resolve("hourly-revenue").toString(),
            "hourly_revenue",
            "--format",
            "svg"),
        is(0));
    Document svg =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(out.getBytes(StandardCharsets.UTF_8)));
    NodeList groups = svg.getElementsByTagName("g");
    assertThat(groups.getLength(), is(plan.size()));
    double lastBottom = 0;
    for (int i = 0; i < plan.size(); i++) {
      Element g = (Element) groups.item(i);
      assertThat(g.getAttribute("data-kind"), is(plan.get(i).get(0)));
      NodeList texts = g.getElementsByTagName("text");
      List<String> lines = new java.util.ArrayList<>();
      for (int t = 0; t < texts.getLength(); t++) {
        lines.add(texts.item(t).getTextContent());
      }
      assertThat(lines, is(plan.get(i)));
      Element box = (Element) g.getElementsByTagName("rect").item(0);
      double top = Double.parseDouble(box.getAttribute("y"));
      assertThat("node " + i + " below the one before", top > lastBottom, is(true));
      lastBottom = top + Double.parseDouble(box.getAttribute("height"));
      for (int t = 0; t < texts.getLength(); t++) {
        double y = Double.parseDouble(((Element) texts.item(t)).getAttribute("y"));
        assertThat("line inside its box", y > top && y < lastBottom, is(true));
      }
    }
  }

  @Test
  void explainAsDotIsAGraphvizChainOfThePlansNodes() {
    List<List<String>> plan = textPlan("late-event", "customer_metrics");
    assertThat(
        err,
        run(
            "explain",
            TIME.resolve("late-event").toString(),
            "customer_metrics",
            "--format",
            "dot"),
        is(0));
    assertThat(out, containsString("digraph \"customer_metrics\" {"));
    for (int i = 0; i < plan.size(); i++) {
      String label =
          plan.get(i).stream()
              .map(l -> l.replace("\"", "\\\"") + "\\l")
              .collect(Collectors.joining());
      assertThat(out, containsString("n" + i + " [label=\"" + label + "\""));
    }
    assertThat(out, containsString("n0 -> n1;"));
  }

  @Test
  void explainRefusesAnUnknownFormat() {
    assertThat(
        run(
            "explain",
            TIME.resolve("late-event").toString(),
            "customer_metrics",
            "--format",
            "png"),
        is(2));
    assertThat(err, containsString("--format takes text, dot or svg, not 'png'"));
  }

  @Test
  void testWritesTheReportAndPrintsNoProgressWhenCaptured(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("out/report.html");
    assertThat(
        err,
        run("test", TIME.resolve("late-event").toString(), "--report", report.toString()),
        is(0));
    String html = Files.readString(report);
    assertThat(html, containsString("data-fixture=\"late_event\""));
    assertThat(html, containsString("class=\"event late\""));
    assertThat(err, containsString("report: " + report.toAbsolutePath()));
    assertThat("no progress line on a captured output", err + out, not(containsString("\r")));
  }

  @Test
  void aProgressLineCountsAndEstimatesTheTimeLeft() {
    assertThat(
        Progress.line("fuzz direct: traces", 50, 200, "1 disagree", 10.0),
        is("fuzz direct: traces 50/200, 1 disagree (10s, ETA 30s)"));
    assertThat(Progress.line("test: project", 3, 3, "", 4.2), is("test: project 3/3 (4s)"));
    assertThat(Progress.onTerminal(new PrintWriter(new StringWriter())).shows(), is(false));
  }
}
