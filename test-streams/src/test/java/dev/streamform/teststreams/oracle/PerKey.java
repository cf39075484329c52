package dev.streamform.teststreams.oracle;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An outcome as docs/semantics.md §7 says it must not depend on partition interleaving: each key's
 * changelog in order, and the late and quarantined events as a set (by event id).
 */
public final class PerKey {
  private PerKey() {}

  public static String of(DeclaredModel model, FixtureOutcome outcome) {
    List<String> keyOutputs = new ArrayList<>();
    for (OutputColumn c : model.query().outputs()) {
      if (c.kind() == OutputColumn.Kind.KEY) {
        keyOutputs.add(c.name());
      }
    }
    Map<String, StringBuilder> byKey = new TreeMap<>();
    for (FixtureOutcome.Change c : outcome.changelog) {
      StringBuilder key = new StringBuilder();
      keyOutputs.forEach(k -> key.append(ColumnValues.show(c.values.get(k))).append(' '));
      byKey
          .computeIfAbsent(key.toString(), k -> new StringBuilder())
          .append("  ")
          .append(c.eventId)
          .append(' ')
          .append(c.op)
          .append(' ')
          .append(c.values)
          .append('\n');
    }
    StringBuilder b = new StringBuilder();
    byKey.forEach((k, changes) -> b.append("key ").append(k).append('\n').append(changes));
    new TreeMap<String, String>() {
      {
        outcome.late.forEach(
            d -> put(d.eventId, "late " + d.eventId + " " + d.record + " < " + d.watermark));
        outcome.quarantined.forEach(
            q -> put(q.eventId, "quarantined " + q.eventId + " " + q.reason));
      }
    }.values().forEach(l -> b.append(l).append('\n'));
    return b.toString();
  }
}
