package dev.streamform.teststreams.report;

import static dev.streamform.teststreams.report.Markup.num;

import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.oracle.Timeline;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One fixture's timeline as an SVG: x is the delivery order ({@code given:} item numbers, the last
 * column the end of the input), y is event time. Each partition is a series of dots; its watermark
 * {@code W_p} is a step line that steps up right after the item that raised it, so at an event's x
 * the line stands at the {@code W_p} the event was judged against. Late events are hollow and red,
 * kept late events orange, corrections outlined, quarantined events (no event time) crosses under
 * the axis. A windowed model's windows are horizontal bands, with a mark for each record the run
 * emitted (on time, corrected, final, early) at the item where the oracle emitted it; an upsert
 * model's expired key states are marked where the next event found them expired, at the time they
 * expired. The first difference of each failure is ringed.
 *
 * <p>The positions come from the reference oracle's {@link Timeline} (what docs/semantics.md says
 * happens when); what is late, quarantined and emitted comes from the run's {@link FixtureOutcome},
 * so a run that disagrees with the contract shows it (a record with no such emission in the oracle
 * is drawn at the end of the input and dashed). Every drawn element carries its data ({@code
 * data-event}, {@code data-partition}, {@code data-time}, ...) and the plot its scale ({@code
 * data-*} of {@code g.plot}), so a reader or a test can check each position against the fixture.
 */
public final class TimelineChart {
  static final int WIDTH = 760;
  static final int HEIGHT = 400;
  private static final int LEFT = 96;
  private static final int RIGHT = 24;
  private static final int TOP = 28;
  private static final int BOTTOM = 112; // the x axis, the quarantine row, the legend
  private static final String[] PALETTE = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf"};

  private static final String STYLE =
      String.join(
          "\n",
          ".axis{stroke:#444;stroke-width:1}",
          ".grid{stroke:#ddd;stroke-width:1}",
          "text{font:11px sans-serif;fill:#333}",
          ".window{fill:#f2c94c;fill-opacity:0.18;stroke:#d4a017;stroke-opacity:0.6}",
          ".watermark{fill:none;stroke-width:2;stroke-dasharray:6 3}",
          ".event.late{fill:#fff;stroke:#d62728;stroke-width:2.5}",
          ".event.late_kept{stroke:#ff7f0e;stroke-width:2.5}",
          ".event.correction{stroke:#000;stroke-width:2}",
          ".event.duplicate{fill:#fff;stroke:#7f7f7f;stroke-width:2;stroke-dasharray:2 2}",
          ".quarantined{stroke:#d62728;stroke-width:2.5}",
          ".mark{stroke:#000;stroke-width:1}",
          ".mark.on_time{fill:#2ca02c}",
          ".mark.corrected{fill:#ff7f0e}",
          ".mark.final{fill:#555}",
          ".mark.early{fill:#aec7e8}",
          ".mark.unexpected{stroke-dasharray:2 2;stroke:#d62728}",
          ".expiry{stroke:#7f7f7f;stroke-width:2.5}",
          ".first-difference{fill:none;stroke:#d62728;stroke-width:3}");

  private final Timeline timeline;
  private final FixtureOutcome outcome;
  private final List<FixtureVerdict.Difference> differences;
  private final Map<String, Timeline.Event> events = new LinkedHashMap<>();
  private Map<String, Map<String, Object>> values = Map.of();
  private final Instant min;
  private final Instant max;
  private final double plotWidth = WIDTH - LEFT - RIGHT;
  private final double plotHeight = HEIGHT - TOP - BOTTOM;
  private final DateTimeFormatter labels;

  private TimelineChart(
      Timeline timeline, FixtureOutcome outcome, List<FixtureVerdict.Difference> differences) {
    this.timeline = timeline;
    this.outcome = outcome;
    this.differences = differences;
    timeline.events().forEach(e -> events.put(e.eventId(), e));
    TreeSet<Instant> times = new TreeSet<>();
    timeline.events().stream().map(Timeline.Event::time).filter(t -> t != null).forEach(times::add);
    outcome.revisions.forEach(
        r -> {
          times.add(r.windowStart);
          times.add(r.windowEnd);
        });
    Instant lo0 = times.isEmpty() ? Instant.EPOCH : times.first();
    Instant hi0 = times.isEmpty() ? Instant.EPOCH.plusSeconds(3600) : times.last();
    // watermarks near the events widen the scale; one far ahead (end + a day) stays at the top
    long near = Math.max(3_600_000, hi0.toEpochMilli() - lo0.toEpochMilli());
    timeline.watermarks().stream()
        .map(Timeline.WatermarkStep::value)
        .filter(w -> !w.isBefore(lo0.minusMillis(near)) && !w.isAfter(hi0.plusMillis(near)))
        .forEach(times::add);
    Instant lo = times.isEmpty() ? lo0 : times.first();
    Instant hi = times.isEmpty() ? hi0 : times.last();
    long pad = Math.max(60_000, (hi.toEpochMilli() - lo.toEpochMilli()) / 12);
    this.min = lo.minusMillis(pad);
    this.max = hi.plusMillis(pad);
    boolean oneDay =
        min.atZone(ZoneOffset.UTC).toLocalDate().equals(max.atZone(ZoneOffset.UTC).toLocalDate());
    this.labels =
        DateTimeFormatter.ofPattern(oneDay ? "HH:mm" : "MM-dd HH:mm").withZone(ZoneOffset.UTC);
  }

  /**
   * This chart, its events' titles naming what each event held: {@code values} by event id, as the
   * fixture gave them (docs/guides/timelines-and-reports.md: hover for "its event id, times and
   * values").
   */
  public TimelineChart withValues(Map<String, Map<String, Object>> values) {
    this.values = values;
    return this;
  }

  /** " — merchant_id=7 amount=40" for an event whose values are known, else "". */
  private String valuesOf(String event) {
    Map<String, Object> held = values.get(event);
    if (held == null || held.isEmpty()) {
      return "";
    }
    return " — "
        + held.entrySet().stream()
            .filter(x -> x.getValue() != null)
            .map(x -> x.getKey() + "=" + HtmlReport.cell(x.getValue()))
            .collect(Collectors.joining(" "));
  }

  /**
   * The chart of a fixture run: {@code timeline} from the oracle, {@code outcome} from the run,
   * {@code differences} from its verdict.
   */
  public static TimelineChart of(
      Timeline timeline, FixtureOutcome outcome, List<FixtureVerdict.Difference> differences) {
    return new TimelineChart(timeline, outcome, differences);
  }

  /** The chart as a standalone SVG document (its style inside). */
  public String svg() {
    Markup m = new Markup();
    draw(m);
    return m.toString();
  }

  /** Draws the chart into {@code m} as one {@code <svg>} element. */
  public void draw(Markup m) {
    m.open(
        "svg",
        "xmlns",
        "http://www.w3.org/2000/svg",
        "class",
        "timeline",
        "width",
        String.valueOf(WIDTH),
        "height",
        String.valueOf(HEIGHT),
        "viewBox",
        "0 0 " + WIDTH + " " + HEIGHT);
    m.element("style", STYLE);
    m.open(
        "g",
        "class",
        "plot",
        "data-x0",
        num(x(0)),
        "data-x-step",
        num(step()),
        "data-y-top",
        num(TOP),
        "data-y-bottom",
        num(TOP + plotHeight),
        "data-time-top",
        max.toString(),
        "data-time-bottom",
        min.toString());
    axes(m);
    windows(m);
    watermarks(m);
    expiries(m);
    events(m);
    marks(m);
    m.close();
    legend(m);
    m.close();
  }

  // --- scales ------------------------------------------------------------------------------------

  private double step() {
    return plotWidth / (timeline.items() + 1);
  }

  /** The centre of item {@code item}'s column ({@code items()}: the end of the input). */
  double x(int item) {
    return LEFT + (item + 0.5) * step();
  }

  /** Event time {@code t} as y, held inside the plot (a watermark far ahead stays at the top). */
  double y(Instant t) {
    double span = max.toEpochMilli() - min.toEpochMilli();
    double f = (t.toEpochMilli() - min.toEpochMilli()) / span;
    return TOP + plotHeight * (1 - Math.max(0, Math.min(1, f)));
  }

  private String color(int partition) {
    int i = timeline.partitions().indexOf(partition);
    return PALETTE[Math.max(0, i) % PALETTE.length];
  }

  // --- layers ------------------------------------------------------------------------------------

  private void axes(Markup m) {
    double bottom = TOP + plotHeight;
    for (int i = 0; i <= 4; i++) {
      Instant t =
          Instant.ofEpochMilli(
              min.toEpochMilli() + (max.toEpochMilli() - min.toEpochMilli()) * i / 4);
      double y = y(t);
      m.empty(
          "line",
          "class",
          "grid",
          "x1",
          num(LEFT),
          "x2",
          num(LEFT + plotWidth),
          "y1",
          num(y),
          "y2",
          num(y));
      m.element(
          "text", labels.format(t), "x", num(LEFT - 6), "y", num(y + 4), "text-anchor", "end");
    }
    m.empty(
        "line",
        "class",
        "axis",
        "x1",
        num(LEFT),
        "x2",
        num(LEFT),
        "y1",
        num(TOP),
        "y2",
        num(bottom));
    m.empty(
        "line",
        "class",
        "axis",
        "x1",
        num(LEFT),
        "x2",
        num(LEFT + plotWidth),
        "y1",
        num(bottom),
        "y2",
        num(bottom));
    int every = Math.max(1, (timeline.items() + 1) / 20);
    for (int i = 0; i <= timeline.items(); i += every) {
      m.element(
          "text",
          i == timeline.items() ? "end" : String.valueOf(i + 1),
          "x",
          num(x(i)),
          "y",
          num(bottom + 14),
          "text-anchor",
          "middle");
    }
    m.element(
        "text",
        "delivery order (given: item) →",
        "x",
        num(LEFT + plotWidth / 2),
        "y",
        num(bottom + 46),
        "text-anchor",
        "middle");
    m.element("text", "event time (UTC) ↑", "x", "4", "y", num(TOP - 12));
  }

  /** Every window the run emitted a record for: a band from its start to its end. */
  private void windows(Markup m) {
    Set<List<Instant>> seen = new HashSet<>();
    for (FixtureOutcome.Revision r : outcome.revisions) {
      if (seen.add(List.of(r.windowStart, r.windowEnd))) {
        double top = y(r.windowEnd);
        m.open(
            "rect",
            "class",
            "window",
            "x",
            num(LEFT),
            "width",
            num(plotWidth),
            "y",
            num(top),
            "height",
            num(y(r.windowStart) - top),
            "data-start",
            r.windowStart.toString(),
            "data-end",
            r.windowEnd.toString());
        m.element("title", "window [" + r.windowStart + ", " + r.windowEnd + ")");
        m.close();
      }
    }
  }

  /**
   * Each partition's {@code W_p}: undefined (no line) until its first step; a step to value {@code
   * v} after item {@code i} rises at the boundary between items {@code i} and {@code i + 1}.
   */
  private void watermarks(Markup m) {
    for (int p : timeline.partitions()) {
      List<Timeline.WatermarkStep> steps =
          timeline.watermarks().stream()
              .filter(s -> s.partition() == p)
              .collect(Collectors.toList());
      if (steps.isEmpty()) {
        continue;
      }
      StringBuilder points = new StringBuilder();
      Instant last = null;
      for (Timeline.WatermarkStep s : steps) {
        double bx = x(s.item()) + step() / 2;
        if (last != null) {
          points.append(num(bx)).append(',').append(num(y(last))).append(' ');
        }
        points.append(num(bx)).append(',').append(num(y(s.value()))).append(' ');
        last = s.value();
      }
      points.append(num(LEFT + plotWidth)).append(',').append(num(y(last)));
      m.open(
          "polyline",
          "class",
          "watermark",
          "data-partition",
          String.valueOf(p),
          "stroke",
          color(p),
          "points",
          points.toString());
      m.element("title", "W_" + p + " (watermark of partition " + p + "), last " + last);
      m.close();
    }
  }

  private void expiries(Markup m) {
    for (Timeline.Expiry e : timeline.expiries()) {
      double cx = x(e.item());
      double cy = y(e.expiredAt());
      m.open(
          "path",
          "class",
          "expiry",
          "data-item",
          String.valueOf(e.item()),
          "data-expired-at",
          e.expiredAt().toString(),
          "d",
          "M"
              + num(cx - 5)
              + ","
              + num(cy - 5)
              + " L"
              + num(cx + 5)
              + ","
              + num(cy + 5)
              + " M"
              + num(cx - 5)
              + ","
              + num(cy + 5)
              + " L"
              + num(cx + 5)
              + ","
              + num(cy - 5));
      m.element(
          "title",
          "state of key "
              + e.key()
              + " expired at "
              + e.expiredAt()
              + " (latest + retention); found at item "
              + (e.item() + 1)
              + ", which starts it over");
      m.close();
    }
  }

  private void events(Markup m) {
    Set<String> late = outcome.late.stream().map(d -> d.eventId).collect(Collectors.toSet());
    // the windows that refused an event as too late (a hopping event may correct another)
    Map<String, List<Instant>> refusedBy = new LinkedHashMap<>();
    outcome.late.stream()
        .filter(d -> d.windowStart != null)
        .forEach(
            d -> refusedBy.computeIfAbsent(d.eventId, k -> new ArrayList<>()).add(d.windowStart));
    Map<String, String> quarantined = new LinkedHashMap<>();
    outcome.quarantined.forEach(q -> quarantined.putIfAbsent(q.eventId, q.reason));
    Set<String> ringed =
        differences.stream()
            .map(FixtureVerdict.Difference::eventId)
            .filter(id -> id != null)
            .collect(Collectors.toSet());
    double quarantineRow = TOP + plotHeight + 28;
    for (Timeline.Event e : timeline.events()) {
      String id = e.eventId();
      double cx = x(e.item());
      String title =
          "event "
              + id
              + " (item "
              + (e.item() + 1)
              + ", partition "
              + e.partition()
              + ")"
              + (e.time() == null ? "" : " at " + e.time())
              + ", W_"
              + e.partition()
              + " at arrival "
              + (e.watermark() == null ? "undefined" : e.watermark());
      boolean wasQuarantined =
          quarantined.containsKey(id) || e.judgement() == Timeline.Judgement.QUARANTINED;
      if (!wasQuarantined && e.time() == null) {
        // processed without an event time (a source without event_time): it has no place on
        // this axis, and drawing it as quarantined would say what did not happen (ADR 0120)
        continue;
      }
      if (wasQuarantined) {
        m.open(
            "path",
            "class",
            "quarantined",
            "data-event",
            id,
            "data-item",
            String.valueOf(e.item()),
            "d",
            "M"
                + num(cx - 5)
                + ","
                + num(quarantineRow - 5)
                + " L"
                + num(cx + 5)
                + ","
                + num(quarantineRow + 5)
                + " M"
                + num(cx - 5)
                + ","
                + num(quarantineRow + 5)
                + " L"
                + num(cx + 5)
                + ","
                + num(quarantineRow - 5));
        m.element(
            "title",
            title
                + (quarantined.containsKey(id)
                    ? ": quarantined (" + quarantined.get(id) + ")"
                    : e.time() == null
                        ? ": quarantined (no event time)"
                        : ": quarantined (event_id: a conflict, or no id)")
                + valuesOf(id));
        m.close();
        ring(m, ringed.contains(id), id, cx, quarantineRow);
        continue;
      }
      // dropped by the run: late, unless the oracle has a window take it (a hopping event too
      // late for one window and a correction or on time in another is drawn as what it did)
      boolean takenByAWindow =
          refusedBy.containsKey(id)
              && (e.judgement() == Timeline.Judgement.CORRECTION
                  || e.judgement() == Timeline.Judgement.ON_TIME);
      String kind =
          late.contains(id) && !takenByAWindow
              ? "late"
              : e.judgement() == Timeline.Judgement.LATE_KEPT
                  ? "late_kept"
                  : e.judgement() == Timeline.Judgement.CORRECTION
                      ? "correction"
                      : e.judgement() == Timeline.Judgement.DUPLICATE ? "duplicate" : "on_time";
      double cy = y(e.time());
      m.open(
          "circle",
          "class",
          "event " + kind,
          "data-event",
          id,
          "data-item",
          String.valueOf(e.item()),
          "data-partition",
          String.valueOf(e.partition()),
          "data-time",
          e.time().toString(),
          "data-watermark",
          e.watermark() == null ? null : e.watermark().toString(),
          "cx",
          num(cx),
          "cy",
          num(cy),
          "r",
          "5",
          "fill",
          kind.equals("late") ? null : color(e.partition()),
          "stroke",
          kind.equals("on_time") ? color(e.partition()) : null);
      m.element(
          "title",
          title
              + ": "
              + kind.replace('_', ' ')
              + (takenByAWindow
                  ? refusedBy.get(id).stream()
                      .map(s -> "; too late for the window starting " + s + " (a late row)")
                      .collect(Collectors.joining())
                  : "")
              + valuesOf(id));
      m.close();
      ring(m, ringed.contains(id), id, cx, cy);
    }
  }

  /**
   * Each record of the run on its window's band, at the item where the oracle emitted the same
   * record (status, revision, window, key); keys of one window side by side inside the band.
   */
  private void marks(Markup m) {
    List<Timeline.Emission> unused = new ArrayList<>(timeline.emissions());
    Set<FixtureOutcome.Revision> ringed =
        differences.stream()
            .map(FixtureVerdict.Difference::record)
            .filter(r -> r != null)
            .collect(Collectors.toSet());
    Map<List<Instant>, List<String>> keysOfWindow = new LinkedHashMap<>();
    for (FixtureOutcome.Revision r : outcome.revisions) {
      List<String> keys =
          keysOfWindow.computeIfAbsent(List.of(r.windowStart, r.windowEnd), w -> new ArrayList<>());
      if (!keys.contains(key(r.key))) {
        keys.add(key(r.key));
      }
    }
    for (FixtureOutcome.Revision r : outcome.revisions) {
      Timeline.Emission at = null;
      for (Timeline.Emission e : unused) {
        if (e.status().equals(r.status)
            && e.revision() == r.revision
            && e.windowStart().equals(r.windowStart)
            && e.windowEnd().equals(r.windowEnd)
            && key(e.key()).equals(key(r.key))) {
          at = e;
          break;
        }
      }
      unused.remove(at);
      int item = at == null ? timeline.items() : at.item();
      double top = y(r.windowEnd);
      double bottom = y(r.windowStart);
      List<String> keys = keysOfWindow.get(List.of(r.windowStart, r.windowEnd));
      double room = Math.max(0, (bottom - top) / 2 - 5);
      double offset =
          keys.size() == 1
              ? 0
              : (keys.indexOf(key(r.key)) - (keys.size() - 1) / 2.0)
                  * Math.min(12, 2 * room / (keys.size() - 1));
      double cx = x(item) + step() / 4; // beside the event that caused it, not over it
      double cy = (top + bottom) / 2 + offset;
      String statusClass = r.status.replace('-', '_');
      m.open(
          "rect",
          "class",
          "mark " + statusClass + (at == null ? " unexpected" : ""),
          "data-status",
          r.status,
          "data-revision",
          String.valueOf(r.revision),
          "data-window-start",
          r.windowStart.toString(),
          "data-window-end",
          r.windowEnd.toString(),
          "data-key",
          key(r.key),
          "data-item",
          String.valueOf(item),
          "x",
          num(cx - 5),
          "y",
          num(cy - 5),
          "width",
          "10",
          "height",
          "10",
          "transform",
          r.status.equals("corrected") ? "rotate(45 " + num(cx) + " " + num(cy) + ")" : null);
      m.element(
          "title",
          r.status
              + " revision "
              + r.revision
              + " of "
              + key(r.key)
              + " ["
              + r.windowStart
              + ", "
              + r.windowEnd
              + "): "
              + show(r.values)
              + (at == null ? " — the oracle emits no such record" : ""));
      m.close();
      ring(m, ringed.contains(r), r.status, cx, cy);
    }
  }

  private static void ring(Markup m, boolean ringed, String what, double cx, double cy) {
    if (ringed) {
      m.open(
          "circle",
          "class",
          "first-difference",
          "data-of",
          what,
          "cx",
          num(cx),
          "cy",
          num(cy),
          "r",
          "11");
      m.element("title", "first difference: see the table below");
      m.close();
    }
  }

  private void legend(Markup m) {
    double y = HEIGHT - 34;
    double x = LEFT;
    String[][] entries = {
      {"circle", "event on time", "fill:#1f77b4"},
      {"circle", "late (dropped)", "fill:#fff;stroke:#d62728;stroke-width:2.5"},
      {"circle", "correction", "fill:#1f77b4;stroke:#000;stroke-width:2"},
      {"line", "W_p (per partition)", "stroke:#1f77b4;stroke-width:2;stroke-dasharray:6 3"},
      {"rect", "window", "fill:#f2c94c;fill-opacity:0.35;stroke:#d4a017"},
      {"mark", "on time / corrected / final", ""},
      {
        "cross",
        "key state expired / quarantined (under the axis)",
        "stroke:#7f7f7f;stroke-width:2.5"
      }
    };
    m.open("g", "class", "legend");
    for (String[] e : entries) {
      switch (e[0]) {
        case "circle" ->
            m.empty("circle", "cx", num(x + 5), "cy", num(y - 4), "r", "5", "style", e[2]);
        case "line" ->
            m.empty(
                "line",
                "x1",
                num(x),
                "x2",
                num(x + 14),
                "y1",
                num(y - 4),
                "y2",
                num(y - 4),
                "style",
                e[2]);
        case "rect" ->
            m.empty(
                "rect",
                "x",
                num(x),
                "y",
                num(y - 10),
                "width",
                "14",
                "height",
                "12",
                "style",
                e[2]);
        case "cross" ->
            m.empty(
                "path",
                "d",
                "M"
                    + num(x)
                    + ","
                    + num(y - 9)
                    + " L"
                    + num(x + 10)
                    + ","
                    + num(y + 1)
                    + " M"
                    + num(x)
                    + ","
                    + num(y + 1)
                    + " L"
                    + num(x + 10)
                    + ","
                    + num(y - 9),
                "style",
                e[2]);
        default -> {
          m.empty(
              "rect",
              "x",
              num(x),
              "y",
              num(y - 9),
              "width",
              "8",
              "height",
              "8",
              "style",
              "fill:#2ca02c;stroke:#000");
          m.empty(
              "rect",
              "x",
              num(x + 11),
              "y",
              num(y - 9),
              "width",
              "8",
              "height",
              "8",
              "style",
              "fill:#ff7f0e;stroke:#000",
              "transform",
              "rotate(45 " + num(x + 15) + " " + num(y - 5) + ")");
          m.empty(
              "rect",
              "x",
              num(x + 22),
              "y",
              num(y - 9),
              "width",
              "8",
              "height",
              "8",
              "style",
              "fill:#555;stroke:#000");
          x += 22;
        }
      }
      m.element("text", e[1], "x", num(x + 18), "y", num(y));
      x += 30 + e[1].length() * 6.2;
      if (x > WIDTH - 200) { // next row
        x = LEFT;
        y += 20;
      }
    }
    m.close();
  }

  private static String key(Map<String, Object> key) {
    return key.entrySet().stream()
        .map(k -> k.getKey() + "=" + ColumnValues.show(k.getValue()))
        .collect(Collectors.joining(" "));
  }

  private static String show(Map<String, Object> values) {
    return key(values);
  }
}
