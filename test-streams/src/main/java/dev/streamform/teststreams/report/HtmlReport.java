package dev.streamform.teststreams.report;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.policies.schema.InvisibleCharacters;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.teststreams.fixture.FixtureKind;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.SuiteReports;
import dev.streamform.teststreams.oracle.Timeline;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The HTML test report of {@code streamform test --report}: one self-contained file (inline CSS and
 * SVG, no script, nothing fetched) with, per fixture, PASS, FAIL or ACCEPTED (what {@code --accept}
 * rewrote), the counts and failure tables as the terminal shows them, a {@link TimelineChart} and
 * the expected and actual rows; a fixture that could not run or that {@code --fail-fast} left out
 * has a section saying so. It listens to a {@link FixtureSuite} and is written once the suite has
 * run.
 */
public final class HtmlReport implements FixtureSuite.Listener {
  private static final String CSS =
      String.join(
          "\n",
          "body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:1100px}",
          "section.fixture{border:1px solid #ccc;border-left:8px solid #2ca02c;padding:8px"
              + " 16px;margin:16px 0}",
          "section.fixture.fail{border-left-color:#d62728}",
          "section.fixture.accepted{border-left-color:#ff7f0e}",
          "section.fixture.not-run{border-left-color:#999}",
          ".verdict{font-weight:bold}.pass .verdict{color:#2ca02c}.fail .verdict{color:#d62728}",
          ".accepted .verdict{color:#ff7f0e}.not-run .verdict{color:#777}",
          "pre{background:#f7f7f7;padding:8px;overflow-x:auto}",
          "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px"
              + " 6px;font-size:12px}",
          "th{background:#eee}.tables{display:flex;gap:24px;flex-wrap:wrap}",
          "p.note{color:#555;font-size:12px}",
          "p.unfinished{color:#d62728;font-weight:bold}");

  /**
   * A fixture that ran ({@code verdict}, and once recorded its {@code result}: accepted or not, the
   * report as printed), or one that could not run or was not run ({@code result} alone).
   */
  private record Entry(DeclaredModel model, FixtureVerdict verdict, FixtureSuite.Result result) {}

  private final List<Entry> entries = new ArrayList<>();

  /** The entry of the fixture judged last, until its result is heard; -1 when none waits. */
  private int judged = -1;

  @Override
  public void fixture(DeclaredModel model, FixtureVerdict verdict) {
    entries.add(new Entry(model, verdict, null));
    judged = entries.size() - 1;
  }

  /**
   * The result of the fixture judged last (the suite records it right after judging it: {@code
   * --accept} may have rewritten it, or failed to) completes its section; a fixture that could not
   * run — its project or file does not load, or its run stopped with an error — or that {@code
   * --fail-fast} left out has a section of its own: the summary counts it, and the section says
   * why. One section per fixture.
   */
  @Override
  public void result(FixtureSuite.Result result) {
    if (judged >= 0) {
      Entry e = entries.get(judged);
      entries.set(judged, new Entry(e.model(), e.verdict(), result));
      judged = -1;
    } else if (result.status() == FixtureSuite.Status.ERROR
        || result.status() == FixtureSuite.Status.NOT_RUN) {
      entries.add(new Entry(null, null, result));
    }
  }

  /**
   * Writes the report of the fixtures heard so far to {@code file}, under {@code title}: whole, or
   * not at all ({@link SuiteReports#writeWhole}).
   */
  public void write(Path file, String title, String summary) throws IOException {
    String page = html(title, summary);
    SuiteReports.writeWhole(file, w -> w.write(page));
  }

  /**
   * Writes to {@code file} the page of run {@code title} that started at {@code startedAt} and has
   * not written its report (yet): {@link SuiteReports#NOT_FINISHED}, and when and what. Put in
   * place of an earlier run's report before the first fixture runs (docs/decisions/0102).
   */
  public static void writeUnfinished(Path file, String title, Instant startedAt)
      throws IOException {
    String page = unfinishedHtml(title, startedAt);
    SuiteReports.writeWhole(file, w -> w.write(page));
  }

  /** The page {@link #writeUnfinished} writes. */
  public static String unfinishedHtml(String title, Instant startedAt) {
    Markup m = new Markup().doctypeHtml();
    m.open("html", "lang", "en").open("head");
    m.empty("meta", "charset", "utf-8");
    m.element("title", title + ": did not finish").element("style", CSS).close();
    m.open("body");
    m.element("h1", title);
    m.element("p", SuiteReports.NOT_FINISHED, "class", "summary unfinished");
    m.element("p", SuiteReports.unfinishedText(title, startedAt));
    m.close().close();
    return m.toString();
  }

  /** The report as one HTML document. */
  public String html(String title, String summary) {
    Markup m = new Markup().doctypeHtml();
    m.open("html", "lang", "en").open("head");
    m.empty("meta", "charset", "utf-8");
    m.element("title", title).element("style", CSS).close();
    m.open("body");
    m.element("h1", title);
    m.element("p", summary, "class", "summary");
    m.element(
        "p",
        "x: delivery order (given: items, then the end of the input); y: event time. Dashed lines:"
            + " each partition's watermark W_p, stepping up right after the item that raised it."
            + " Hollow red dots: late events; outlined: corrections; bands: windows, with the"
            + " records emitted (green square on time, orange diamond corrected, grey final); grey"
            + " crosses: a key's expired state; crosses under the axis: quarantined events; red"
            + " rings: the first difference of a failure. Hover for details.",
        "class",
        "note");
    for (int i = 0; i < entries.size(); i++) {
      section(m, entries.get(i), i);
    }
    m.close().close();
    return m.toString();
  }

  private static void section(Markup m, Entry e, int index) {
    if (e.verdict() == null && e.result().status() == FixtureSuite.Status.NOT_RUN) {
      notRunSection(m, e.result(), index);
      return;
    }
    if (e.verdict() == null) {
      errorSection(m, e.result(), index);
      return;
    }
    FixtureVerdict v = e.verdict();
    Fixture f = v.fixture();
    FixtureSuite.Status status =
        e.result() != null
            ? e.result().status()
            : v.passed() ? FixtureSuite.Status.PASSED : FixtureSuite.Status.FAILED;
    String kind =
        switch (status) {
          case PASSED -> "pass";
          case ACCEPTED -> "accepted";
          case ERROR -> "fail error";
          default -> "fail";
        };
    m.open(
        "section",
        "class",
        "fixture " + kind,
        "id",
        "fixture-" + (index + 1),
        "data-fixture",
        f.name(),
        "data-model",
        f.model());
    m.element("h2", f.name() + " (model " + f.model() + ")");
    m.element("p", f.file().toString(), "class", "note");
    m.element(
        "p",
        switch (status) {
          case PASSED -> "PASS";
          case ACCEPTED -> "ACCEPTED";
          default -> "FAIL";
        },
        "class",
        "verdict");
    // the report as the console printed it: with what --accept wrote, or why it could not
    m.element("pre", e.result() != null ? plain(e.result().report()) : v.render());
    Optional<String> eventTime = e.model().source().eventTime();
    Optional<Timeline> timeline = eventTime.isPresent() ? timeline(e.model(), f) : Optional.empty();
    if (eventTime.isEmpty()) {
      // docs/decisions/0120: no event time, no event-time axis to draw on
      m.element(
          "p",
          "No timeline: source '"
              + e.model().source().name()
              + "' has no event_time, so its events have no time to draw. They are processed in"
              + " the order they arrive (given: order), no watermark judges them and none is late;"
              + " the actual table below lists what each did, in that order.",
          "class",
          "note");
    } else if (timeline.isPresent()) {
      TimelineChart.of(timeline.get(), v.outcome(), v.differences())
          .withValues(given(e.model(), f))
          .draw(m);
    } else {
      m.element("p", "no timeline for a scoring model's decisions", "class", "note");
    }
    m.open("div", "class", "tables");
    table(m, "expected (expect:)", expected(f));
    table(m, "actual (the run)", actual(v.outcome(), given(e.model(), f)));
    m.close();
    m.close();
  }

  /**
   * The section of a fixture that could not run: FAIL, its name, file and the problems as the
   * terminal printed them (without colour).
   */
  private static void errorSection(Markup m, FixtureSuite.Result r, int index) {
    m.open(
        "section",
        "class",
        "fixture fail error",
        "id",
        "fixture-" + (index + 1),
        "data-fixture",
        r.name(),
        "data-model",
        r.model());
    m.element("h2", r.name() + (r.model() == null ? "" : " (model " + r.model() + ")"));
    m.element("p", String.valueOf(r.file()), "class", "note");
    m.element("p", "FAIL: could not run", "class", "verdict");
    m.element("pre", plain(r.report()));
    m.close();
  }

  /**
   * The section of a fixture {@code --fail-fast} left out: its name, file and that it was not run,
   * as the summary counts it.
   */
  private static void notRunSection(Markup m, FixtureSuite.Result r, int index) {
    m.open(
        "section",
        "class",
        "fixture not-run",
        "id",
        "fixture-" + (index + 1),
        "data-fixture",
        r.name(),
        "data-model",
        r.model());
    m.element("h2", r.name() + (r.model() == null ? "" : " (model " + r.model() + ")"));
    m.element("p", String.valueOf(r.file()), "class", "note");
    m.element("p", "NOT RUN: --fail-fast stopped after a failure", "class", "verdict");
    m.close();
  }

  /** A report as the terminal printed it, without its colours. */
  private static String plain(String report) {
    return report.replaceAll("\u001B\\[[0-9;]*m", "");
  }

  /**
   * The event of each {@code given:} item by its id ({@code partition-offset}), as the fixture
   * wrote it; empty when the fixture cannot be compiled for {@code model}.
   */
  private static Map<String, Map<String, Object>> given(DeclaredModel model, Fixture f) {
    Map<String, Map<String, Object>> events = new LinkedHashMap<>();
    try {
      FixtureStream stream = FixtureStream.compile(f, model);
      for (Fixture.Given g : f.given()) {
        String id = stream.eventIdOf(g);
        if (id != null && g.event().isPresent()) {
          events.put(id, g.event().get());
        }
      }
    } catch (RuntimeException e) {
      return Map.of(); // the rows without the events' values: a help, not a need
    }
    return events;
  }

  /** The oracle's timeline of an upsert or windowed model; none for a scoring model. */
  private static Optional<Timeline> timeline(DeclaredModel model, Fixture fixture) {
    return FixtureKind.of(model).timeline(fixture);
  }

  private static List<Map<String, String>> expected(Fixture f) {
    List<Map<String, String>> rows = new ArrayList<>();
    for (Fixture.Row r : f.expect()) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("line", String.valueOf(r.line()));
      r.windowStart().ifPresent(s -> row.put("window_start", s.toString()));
      r.windowEnd().ifPresent(s -> row.put("window_end", s.toString()));
      r.status().ifPresent(s -> row.put("status", s.yamlName()));
      r.revision().ifPresent(s -> row.put("revision", String.valueOf(s)));
      r.values().forEach((k, x) -> row.put(k, cell(x)));
      rows.add(row);
    }
    // the late, duplicate and quarantined events a fixture lists, each with its status (a
    // quarantined: row's reason is the text its reason must contain)
    listed(rows, f.late(), "late");
    listed(rows, f.duplicates(), "duplicate");
    listed(rows, f.quarantined(), "quarantined");
    return rows;
  }

  /** A row per listed event: its line, {@code status}, a late row's window start, its values. */
  private static void listed(
      List<Map<String, String>> rows, List<Fixture.Row> listed, String status) {
    for (Fixture.Row r : listed) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("line", String.valueOf(r.line()));
      row.put("status", status);
      r.windowStart().ifPresent(s -> row.put("window_start", s.toString()));
      r.values().forEach((k, x) -> row.put(k, cell(x)));
      rows.add(row);
    }
  }

  private static List<Map<String, String>> actual(
      FixtureOutcome o, Map<String, Map<String, Object>> given) {
    List<Map<String, String>> rows = new ArrayList<>();
    for (FixtureOutcome.Change c : o.changelog) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("event", c.eventId);
      row.put("op", c.op);
      c.values.forEach((k, x) -> row.put(k, cell(x)));
      rows.add(row);
    }
    for (FixtureOutcome.Revision r : o.revisions) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("window_start", r.windowStart.toString());
      row.put("window_end", r.windowEnd.toString());
      row.put("status", r.status);
      row.put("revision", String.valueOf(r.revision));
      r.columns().forEach((k, x) -> row.put(k, cell(x)));
      rows.add(row);
    }
    for (FixtureOutcome.Routed r : o.routed) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("event", r.eventId());
      row.put("status", r.route());
      row.put("revision", String.valueOf(r.revision()));
      r.event().forEach((k, x) -> row.put(k, cell(x)));
      // the features the decision read: what its expected rows compare beside the score
      if (r.features() != null) {
        r.features().forEach((k, x) -> row.put(k, cell(x)));
      }
      row.put("score", r.score() == null ? "" : String.valueOf(r.score()));
      rows.add(row);
    }
    for (FixtureOutcome.Dropped d : o.late) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("event", d.eventId);
      row.put("status", "late");
      if (d.windowStart != null) {
        row.put("window_start", d.windowStart.toString());
      }
      d.record.forEach((k, x) -> row.put(k, cell(x)));
      row.put("watermark", d.watermark.toString());
      rows.add(row);
    }
    for (FixtureOutcome.Duplicate d : o.duplicates) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("event", d.eventId);
      row.put("status", "duplicate");
      d.record.forEach((k, x) -> row.put(k, cell(x)));
      rows.add(row);
    }
    for (FixtureOutcome.Quarantined q : o.quarantined) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("event", q.eventId);
      row.put("status", "quarantined: " + q.reason);
      // what the event held, as the fixture gave it: the run keeps no typed record of it
      given.getOrDefault(q.eventId, Map.of()).forEach((k, x) -> row.putIfAbsent(k, cell(x)));
      rows.add(row);
    }
    return rows;
  }

  /**
   * A value in a table cell: as the terminal shows it, but text and timestamps bare (a cell holds
   * one value, so it needs no quotes), the same in the expected and the actual table; a character
   * one cannot see is shown as its escape, as the terminal shows it (ADR 0138).
   */
  static String cell(Object value) {
    if (value instanceof String text) {
      return InvisibleCharacters.escaped(text);
    }
    if (value instanceof Instant t) {
      return Timestamps.format(t);
    }
    return ColumnValues.show(value);
  }

  private static void table(Markup m, String caption, List<Map<String, String>> rows) {
    Set<String> columns = new LinkedHashSet<>();
    rows.forEach(r -> columns.addAll(r.keySet()));
    m.open("table");
    m.element("caption", caption + (rows.isEmpty() ? ": nothing" : ""));
    m.open("tr");
    columns.forEach(c -> m.element("th", c));
    m.close();
    for (Map<String, String> r : rows) {
      m.open("tr");
      columns.forEach(c -> m.element("td", r.getOrDefault(c, "")));
      m.close();
    }
    m.close();
  }
}
