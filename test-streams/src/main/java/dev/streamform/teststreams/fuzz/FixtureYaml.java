package dev.streamform.teststreams.fuzz;

import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.teststreams.fixture.FixtureAccept;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Writes a trace as a fixture file in the docs/semantics.md §4 format: its {@code given:} items,
 * and the {@code expect:} (for a scoring model its routed rows), {@code late:}, {@code duplicates:}
 * and {@code quarantined:} the oracle gave for them — what the runner should have done. Public for
 * generated fixtures elsewhere (the benchmarks' 5,000-event fixture); its output reads back with
 * {@code Fixture.load}.
 */
public final class FixtureYaml {
  private FixtureYaml() {}

  /** {@code trace}'s items and {@code oracle}'s answer as fixture YAML, {@code comments} first. */
  public static String render(Fixture trace, FixtureOutcome oracle, List<String> comments) {
    return render(trace, oracle, comments, id -> null);
  }

  /**
   * As {@link #render(Fixture, FixtureOutcome, List)}, with a {@code quarantined:} row for each
   * quarantined event that {@code itemOf} finds among the trace's items (by its event id): its
   * columns and the oracle's reason.
   */
  public static String render(
      Fixture trace,
      FixtureOutcome oracle,
      List<String> comments,
      Function<String, Fixture.Given> itemOf) {
    StringBuilder b = new StringBuilder();
    comments.forEach(c -> b.append("# ").append(c).append('\n'));
    b.append("model: ").append(trace.model()).append("\n\ngiven:\n");
    for (Fixture.Given g : trace.given()) {
      if (g.event().isPresent()) {
        b.append("  - event: ").append(flow(g.event().get())).append('\n');
      } else {
        b.append("  - watermark: ").append(scalar(g.watermark().get())).append('\n');
      }
      if (!g.allPartitions() && (g.event().isEmpty() || g.partition() != 0)) {
        b.append("    partition: ").append(g.partition()).append('\n');
      }
    }
    b.append("\nexpect:")
        .append(
            oracle.changelog.isEmpty() && oracle.revisions.isEmpty() && oracle.routed.isEmpty()
                ? " []"
                : "")
        .append('\n');
    for (FixtureOutcome.Routed r : oracle.routed) {
      // a scoring model's rows, in the form --accept writes them
      b.append("  - ").append(FixtureAccept.routedRow(r, itemOf.apply(r.eventId()))).append('\n');
    }
    for (FixtureOutcome.Change c : oracle.changelog) {
      b.append("  - { op: ").append(c.op);
      c.values.forEach((k, v) -> b.append(", ").append(k).append(": ").append(scalar(v)));
      b.append(" }\n");
    }
    for (FixtureOutcome.Revision r : oracle.revisions) {
      b.append("  - { window_start: ")
          .append(scalar(r.windowStart))
          .append(", window_end: ")
          .append(scalar(r.windowEnd));
      r.key.forEach((k, v) -> b.append(", ").append(k).append(": ").append(scalar(v)));
      r.values.forEach((k, v) -> b.append(", ").append(k).append(": ").append(scalar(v)));
      b.append(", revision: ")
          .append(r.revision)
          .append(", status: ")
          .append(r.status)
          .append(r.predecessor == null ? "" : ", predecessor: " + r.predecessor)
          .append(" }\n");
    }
    if (!oracle.late.isEmpty()) {
      b.append("\nlate:\n");
      for (FixtureOutcome.Dropped d : oracle.late) {
        Map<String, Object> row = new java.util.LinkedHashMap<>(d.record);
        if (d.windowStart != null) {
          row.put("window_start", d.windowStart);
        }
        b.append("  - ").append(flow(row)).append('\n');
      }
    }
    if (!oracle.duplicates.isEmpty()) {
      b.append("\nduplicates:\n");
      for (FixtureOutcome.Duplicate d : oracle.duplicates) {
        b.append("  - ").append(flow(d.record)).append('\n');
      }
    }
    StringBuilder quarantined = new StringBuilder();
    for (FixtureOutcome.Quarantined q : oracle.quarantined) {
      Fixture.Given item = itemOf.apply(q.eventId);
      if (item != null && item.event().isPresent()) {
        Map<String, Object> row = new java.util.LinkedHashMap<>(item.event().get());
        row.put("reason", q.reason);
        quarantined.append("  - ").append(flow(row)).append('\n');
      }
    }
    if (quarantined.length() > 0 && oracle.routed.isEmpty()) { // scoring: dead_lettered rows
      b.append("\nquarantined:\n").append(quarantined);
    }
    return b.toString();
  }

  /** A row as a YAML flow mapping; null columns are left out (absent is null). */
  private static String flow(Map<String, Object> values) {
    StringBuilder b = new StringBuilder("{ ");
    values.forEach(
        (k, v) -> {
          if (v != null) {
            b.append(b.length() > 2 ? ", " : "").append(k).append(": ").append(scalar(v));
          }
        });
    return b.append(" }").toString();
  }

  private static String scalar(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Instant) {
      return "\"" + Timestamps.format((Instant) v) + "\"";
    }
    if (v instanceof String) {
      return "\"" + ((String) v).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    if (v instanceof Double) {
      return new BigDecimal(v.toString()).toPlainString();
    }
    if (v instanceof BigDecimal) {
      return ((BigDecimal) v).toPlainString();
    }
    return v.toString();
  }
}
