package dev.streamform.teststreams.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.htmlunit.WebClient;
import org.htmlunit.html.DomElement;
import org.htmlunit.html.DomNode;
import org.htmlunit.html.HtmlPage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report of the seed's late-event fixture, its windowed hourly-revenue fixtures and a
 * failing copy of the late-event fixture, loaded in HtmlUnit's browser engine: every drawn element
 * is found in the page and its position checked against the fixture files, read on their own — an
 * event's dot at its item and event time, each late event below its partition's watermark line
 * where it arrived, each correction mark inside its window's band beside the correction that caused
 * it, the first difference of a failure ringed on the event that caused it.
 */
class HtmlReportTest {
  private static final Path LATE_EVENT = Path.of("fixtures/time/late-event");
  private static final Path HOURLY = Path.of("fixtures/time/hourly-revenue");

  @TempDir static Path dir;
  private static WebClient browser;
  private static HtmlPage page;

  @BeforeAll
  static void runAndLoad() throws Exception {
    // a failing copy of the late-event project: its last expected total is wrong
    Path failing = dir.resolve("late-event-wrong");
    copy(LATE_EVENT, failing);
    Path fixture = failing.resolve("fixtures/late_event.yml");
    Files.writeString(
        fixture, Files.readString(fixture).replace("total_spend: 31", "total_spend: 32"));

    HtmlReport report = new HtmlReport();
    FixtureSuite suite =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(new StringWriter()))
            .listening(report);
    suite.run(LATE_EVENT);
    suite.run(HOURLY);
    suite.run(failing);
    Path file = dir.resolve("report/report.html");
    report.write(file, "seed fixtures", suite.summary());

    browser = new WebClient();
    browser.getOptions().setJavaScriptEnabled(true);
    browser.getOptions().setCssEnabled(false);
    page = browser.getPage(file.toUri().toURL());
  }

  @AfterAll
  static void close() {
    browser.close();
  }

  @Test
  void theReportIsSelfContained() {
    assertTrue(
        page.getByXPath("//script|//link|//img|//iframe|//object").isEmpty(),
        "no script, stylesheet link, image or frame to fetch");
    assertTrue(all("//*[@href or @src]").isEmpty(), "no reference to fetch");
    assertEquals(
        4, sections().size(), "late_event, hourly_revenue, revision_identity, the failing copy");
  }

  @Test
  void eachDotIsAtItsItemAndEventTime() throws Exception {
    for (DomElement section : sections()) {
      Fixture fixture = fixtureOf(section);
      Scale s = Scale.of(section);
      for (DomElement dot :
          in(section, ".//*[local-name()='circle' and contains(@class,'event')]")) {
        int item = Integer.parseInt(dot.getAttribute("data-item"));
        Instant given = (Instant) fixture.given().get(item).event().get().get("ordered_at");
        assertEquals(given.toString(), dot.getAttribute("data-time"), dot.asXml());
        assertEquals(s.y(given), num(dot, "cy"), 0.11, "y of " + dot.asXml());
        assertEquals(s.x(item), num(dot, "cx"), 0.11, "x of " + dot.asXml());
      }
    }
  }

  @Test
  void eachLateEventIsBelowItsPartitionsWatermarkWhereItArrived() throws Exception {
    int checked = 0;
    for (DomElement section : sections()) {
      Fixture fixture = fixtureOf(section);
      Scale s = Scale.of(section);
      List<DomElement> late =
          in(section, ".//*[local-name()='circle' and contains(@class,'late')]");
      // the fixture's late: rows, one per event here (one window per event), are the hollow dots
      assertEquals(
          fixture.late().stream()
              .map(r -> r.values().get("ordered_at").toString())
              .sorted()
              .collect(Collectors.toList()),
          late.stream().map(d -> d.getAttribute("data-time")).sorted().collect(Collectors.toList()),
          section.getAttribute("data-fixture"));
      for (DomElement dot : late) {
        DomElement line =
            in(
                    section,
                    ".//*[local-name()='polyline' and @data-partition='"
                        + dot.getAttribute("data-partition")
                        + "']")
                .get(0);
        double lineY = stepAt(line.getAttribute("points"), num(dot, "cx"));
        assertEquals(
            s.y(Instant.parse(dot.getAttribute("data-watermark"))),
            lineY,
            0.11,
            "the line stands at the watermark the event lost to: " + dot.asXml());
        assertTrue(num(dot, "cy") > lineY, "below the watermark line: " + dot.asXml());
        checked++;
      }
    }
    assertEquals(3, checked, "late_event, hourly_revenue and the failing copy each drop one");
  }

  @Test
  void eachCorrectionIsOnItsWindowsBandBesideTheCorrectionThatMadeIt() throws Exception {
    int checked = 0;
    for (DomElement section : sections()) {
      for (DomElement mark :
          in(section, ".//*[local-name()='rect' and contains(@class,'corrected')]")) {
        double cx = num(mark, "x") + 5;
        double cy = num(mark, "y") + 5;
        DomElement band =
            in(
                    section,
                    ".//*[local-name()='rect' and contains(@class,'window') and"
                        + " @data-start='"
                        + mark.getAttribute("data-window-start")
                        + "']")
                .get(0);
        assertTrue(
            cy >= num(band, "y") && cy <= num(band, "y") + num(band, "height"),
            "inside its window's band: " + mark.asXml() + " " + band.asXml());
        Instant start = Instant.parse(band.getAttribute("data-start"));
        Instant end = Instant.parse(band.getAttribute("data-end"));
        List<DomElement> causes =
            in(
                section,
                ".//*[local-name()='circle' and contains(@class,"
                    + "'correction') and @data-item='"
                    + mark.getAttribute("data-item")
                    + "']");
        assertEquals(1, causes.size(), "one correction at the mark's item: " + mark.asXml());
        Instant t = Instant.parse(causes.get(0).getAttribute("data-time"));
        assertTrue(!t.isBefore(start) && t.isBefore(end), "the correction is in the window");
        assertEquals(num(causes.get(0), "cx"), cx, Scale.of(section).step / 2, "beside it");
        checked++;
      }
    }
    assertEquals(2, checked, "hourly_revenue and revision_identity each have one correction");
  }

  @Test
  void aFailureRingsTheEventThatCausedItsFirstDifference() {
    DomElement failing = sections().get(3);
    assertTrue(failing.getAttribute("class").contains("fail"));
    List<DomElement> rings =
        in(failing, ".//*[local-name()='circle' and @class='first-difference']");
    assertEquals(1, rings.size());
    // the 3rd changelog record differs: caused by the 4th item (10:06), event 0-3
    DomElement dot = in(failing, ".//*[local-name()='circle' and @data-event='0-3']").get(0);
    assertEquals("3", dot.getAttribute("data-item"));
    assertEquals(num(dot, "cx"), num(rings.get(0), "cx"), 0.01);
    assertEquals(num(dot, "cy"), num(rings.get(0), "cy"), 0.01);
    for (DomElement passing : sections().subList(0, 3)) {
      assertTrue(in(passing, ".//*[@class='first-difference']").isEmpty());
    }
  }

  // --- reading the page ------------------------------------------------------------------------

  /** The plot's scale, from the data the chart gives: item -> x, event time -> y. */
  private record Scale(
      double x0, double step, double top, double bottom, Instant timeTop, Instant timeBottom) {
    static Scale of(DomElement section) {
      DomElement g = in(section, ".//*[local-name()='g' and @class='plot']").get(0);
      return new Scale(
          num(g, "data-x0"),
          num(g, "data-x-step"),
          num(g, "data-y-top"),
          num(g, "data-y-bottom"),
          Instant.parse(g.getAttribute("data-time-top")),
          Instant.parse(g.getAttribute("data-time-bottom")));
    }

    double x(int item) {
      return x0 + item * step;
    }

    double y(Instant t) {
      double f =
          (double) (timeTop.toEpochMilli() - t.toEpochMilli())
              / (timeTop.toEpochMilli() - timeBottom.toEpochMilli());
      return top + (bottom - top) * Math.max(0, Math.min(1, f));
    }
  }

  /** The y of a step line at {@code x}: of the last vertex at or left of {@code x}. */
  private static double stepAt(String points, double x) {
    double y = Double.NaN;
    for (String p : points.trim().split("\\s+")) {
      String[] xy = p.split(",");
      if (Double.parseDouble(xy[0]) <= x) {
        y = Double.parseDouble(xy[1]);
      }
    }
    assertFalse(Double.isNaN(y), "the watermark line starts right of x=" + x + ": " + points);
    return y;
  }

  private static List<DomElement> sections() {
    return all("//section[contains(@class,'fixture')]");
  }

  private static Fixture fixtureOf(DomElement section) throws Exception {
    String name = section.getAttribute("data-fixture");
    String path = in(section, ".//p[@class='note']").get(0).getTextContent();
    Path file = Path.of(path);
    Path project = file.getParent().getParent();
    Fixture f = Fixture.load(Project.load(project), file);
    assertEquals(name, f.name());
    return f;
  }

  private static List<DomElement> all(String xpath) {
    return page.getByXPath(xpath);
  }

  private static List<DomElement> in(DomNode node, String xpath) {
    return node.getByXPath(xpath);
  }

  private static double num(DomElement e, String attribute) {
    return Double.parseDouble(e.getAttribute(attribute));
  }

  private static void copy(Path from, Path to) throws Exception {
    List<Path> files;
    try (var walk = Files.walk(from)) {
      files = walk.collect(Collectors.toCollection(ArrayList::new));
    }
    for (Path f : files) {
      Path target = to.resolve(from.relativize(f).toString());
      if (Files.isDirectory(f)) {
        Files.createDirectories(target);
      } else {
        Files.copy(f, target);
      }
    }
  }
}
