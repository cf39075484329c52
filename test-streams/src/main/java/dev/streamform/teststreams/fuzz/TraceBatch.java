package dev.streamform.teststreams.fuzz;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.teststreams.fixture.FixtureKind;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.OutcomeBuilder;
import dev.streamform.teststreams.fixture.PartitionClocks;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;

/**
 * Many traces as one fixture, so that one pipeline runs them all: a runner costs seconds to start,
 * a trace milliseconds to process. Trace {@code j} (its slot) keeps its items but gets partitions
 * {@code j * stride + p} and its keys (and {@code event_id}s) tagged with {@code j} (slot 0 is left
 * as it is); since the clock is per partition and the changelog per key (the duplicate detection
 * per id), the traces cannot touch each other. Their items are interleaved, each trace's own order
 * kept — which by docs/semantics.md §7 must not matter either. A watermark item for every partition
 * becomes one item per partition of its trace.
 *
 * <p>The runner's watermark is one for the whole batch: the minimum over every trace's partitions
 * ({@link PartitionClocks}). Interleaved blindly, the slowest trace would hold it below every other
 * trace's edges, and a timer 1 ms off (an expiry, a window end) could not show. So the next item is
 * drawn at random among the traces whose own {@code min_p W_p} is lowest: a trace moves on only
 * once the others have caught up with it, so the batch's watermark steps onto each trace's own
 * watermark values, as if it ran alone.
 *
 * <p>Both the oracle and the runner see the same merged fixture; {@link #split} cuts either's
 * outcome back into one outcome per trace, with the trace's own event ids.
 */
final class TraceBatch {
  /** Added to a tagged key value per slot: far above any generated key. */
  private static final long TAG = 1_000_000L;

  /**
   * The watermark a finished trace's partitions are moved to: far beyond any generated time, so the
   * trace no longer holds the batch back. It changes nothing of the trace's outcome — no item of it
   * follows; its keys expire silently, as at the end of a run of the trace alone.
   */
  static final Instant CLOSED = Instant.parse("9999-01-01T00:00:00Z");

  private final List<Fixture> traces;
  private final int stride;
  private final Fixture merged;
  private final int[] events;
  private final String tagColumn;
  private final ColumnType tagType;
  private final List<String> tagOutputs = new ArrayList<>();

  /**
   * The source's {@code event_id} column when it is tagged too (it is not the key's tag column).
   */
  private final String idColumn;

  private final ColumnType idType;

  private TraceBatch(
      DeclaredModel model, List<Fixture> traces, int stride, Fixture merged, int[] events) {
    this.traces = traces;
    this.stride = stride;
    this.merged = merged;
    this.events = events;
    this.tagColumn = tagColumn(model).orElse(null);
    this.tagType = tagColumn == null ? null : model.source().schema().get(tagColumn);
    this.idColumn = idColumn(model).orElse(null);
    this.idType = idColumn == null ? null : model.source().schema().get(idColumn);
    for (OutputColumn c : model.query().outputs()) {
      if (c.kind() == OutputColumn.Kind.KEY && c.argument().get().equals(tagColumn)) {
        tagOutputs.add(c.name());
      }
    }
  }

  /** The key column whose values carry a slot's tag, if the model has one that can. */
  static Optional<String> tagColumn(DeclaredModel model) {
    for (String k : model.keyColumns()) {
      ColumnType.Kind kind = model.source().schema().get(k).kind();
      boolean eventTime = model.source().eventTime().map(k::equals).orElse(false);
      if (kind != ColumnType.Kind.BOOL && !eventTime) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  /**
   * The source's {@code event_id} column when it is not the tag column: tagged per slot as well, so
   * that two traces' ids never meet.
   */
  private static Optional<String> idColumn(DeclaredModel model) {
    return model.source().eventId().filter(c -> !c.equals(tagColumn(model).orElse(null)));
  }

  /**
   * Whether traces of {@code model} can share a pipeline (their keys and ids can be kept apart).
   */
  static boolean canBatch(DeclaredModel model) {
    // A windowed trace is not merged: splitting window records (their offsets and identity, which
    // name partitions and key values) back into traces is not done. Nor is a scoring model's: a
    // split drops its decisions, so every batched trace compared empty with empty (issue 29).
    // Both run side by side instead (FixtureKind.runsTracesSideBySide).
    boolean idsTaggable =
        idColumn(model)
            .map(c -> model.source().schema().get(c).kind() != ColumnType.Kind.BOOL)
            .orElse(true);
    return tagColumn(model).isPresent() && FixtureKind.of(model).mergesTraces() && idsTaggable;
  }

  static TraceBatch of(DeclaredModel model, List<Fixture> traces, long seed) {
    if (traces.size() > 1 && !canBatch(model)) {
      throw new IllegalArgumentException(
          "model " + model.model().name() + " has no key column to tag");
    }
    String tagColumn = tagColumn(model).orElse(null);
    ColumnType tagType = tagColumn == null ? null : model.source().schema().get(tagColumn);
    String idColumn = idColumn(model).orElse(null);
    ColumnType idType = idColumn == null ? null : model.source().schema().get(idColumn);
    int stride = 1;
    for (Fixture t : traces) {
      for (Fixture.Given g : t.given()) {
        stride = Math.max(stride, g.partition() + 1);
      }
    }
    List<List<Runnable>> pending = new ArrayList<>();
    List<PartitionClocks> clocks = new ArrayList<>();
    List<List<Long>> moves = new ArrayList<>(); // per item: the trace's min_p W_p after it, or null
    List<List<Integer>> closing = new ArrayList<>(); // per trace: its partitions in the batch
    long delay = model.source().watermark().toMillis();
    Optional<String> eventTime = model.source().eventTime();
    Fixture.Builder b = Fixture.builder("batch", model.model().name());
    int[] events = new int[traces.size()];
    for (int slot = 0; slot < traces.size(); slot++) {
      Fixture trace = traces.get(slot);
      TreeSet<Integer> partitions = new TreeSet<>(List.of(0));
      trace.given().forEach(g -> partitions.add(g.partition()));
      List<Runnable> items = new ArrayList<>();
      int base = slot * stride;
      int s = slot;
      TreeSet<Integer> used = new TreeSet<>(); // the trace's partitions in the merged fixture
      for (Fixture.Given g : trace.given()) {
        used.addAll(
            g.event().isPresent() || !g.allPartitions() ? List.of(g.partition()) : partitions);
      }
      PartitionClocks clock = new PartitionClocks(used, delay, eventTime.isPresent());
      closing.add(used.stream().map(p -> base + p).collect(java.util.stream.Collectors.toList()));
      List<Long> move = new ArrayList<>();
      for (Fixture.Given g : trace.given()) {
        if (g.event().isPresent()) {
          events[slot]++;
          Map<String, Object> values = new LinkedHashMap<>(g.event().get());
          if (tagColumn != null) {
            values.put(tagColumn, tag(tagType, values.get(tagColumn), s));
          }
          if (idColumn != null && values.containsKey(idColumn)) {
            values.put(idColumn, tag(idType, values.get(idColumn), s));
          }
          items.add(() -> b.event(base + g.partition(), values));
          Object t = eventTime.map(values::get).orElse(null);
          move.add(
              t instanceof Instant
                  ? clock.event(g.partition(), ((Instant) t).toEpochMilli())
                  : null);
        } else {
          List<Integer> to = g.allPartitions() ? List.copyOf(partitions) : List.of(g.partition());
          items.add(() -> to.forEach(p -> b.watermark(Optional.of(base + p), g.watermark().get())));
          Long after = null;
          for (int p : to) {
            Long m = clock.punctuation(p, g.watermark().get().toEpochMilli());
            after = m == null ? after : m;
          }
          move.add(after);
        }
      }
      pending.add(items);
      moves.add(move);
    }
    Random random = new Random(seed);
    int[] next = new int[traces.size()];
    long[] level = new long[traces.size()]; // each trace's min_p W_p so far
    java.util.Arrays.fill(level, Long.MIN_VALUE);
    List<Integer> open = new ArrayList<>();
    for (int i = 0; i < traces.size(); i++) {
      if (!pending.get(i).isEmpty()) {
        open.add(i);
      }
    }
    while (!open.isEmpty()) {
      long lowest = Long.MAX_VALUE;
      for (int slot : open) {
        lowest = Math.min(lowest, level[slot]);
      }
      List<Integer> laggards = new ArrayList<>();
      for (int i = 0; i < open.size(); i++) {
        if (level[open.get(i)] == lowest) {
          laggards.add(i);
        }
      }
      int pick = laggards.get(random.nextInt(laggards.size()));
      int slot = open.get(pick);
      Long moved = moves.get(slot).get(next[slot]);
      pending.get(slot).get(next[slot]++).run();
      if (moved != null) {
        level[slot] = moved;
      }
      if (next[slot] == pending.get(slot).size()) {
        open.remove(pick);
        // a finished trace stops holding the batch's watermark back: nothing of it comes after
        // (a source without event time has no watermark items, and nothing to hold back)
        if (eventTime.isPresent()) {
          closing.get(slot).forEach(p -> b.watermark(Optional.of(p), CLOSED));
        }
      }
    }
    return new TraceBatch(model, List.copyOf(traces), stride, b.build(), events);
  }

  /** {@code value} tagged with {@code slot} (or, with a negative slot, the tag taken off). */
  private static Object tag(ColumnType type, Object value, int slot) {
    if (value == null || slot == 0) {
      return value;
    }
    switch (type.kind()) {
      case STRING:
        return slot > 0
            ? slot + "~" + value
            : ((String) value).substring(String.valueOf(-slot).length() + 1);
      case INT64:
        return (Long) value + slot * TAG;
      case DECIMAL:
        return ((BigDecimal) value).add(BigDecimal.valueOf(slot * TAG));
      case DOUBLE:
        return (Double) value + slot * TAG;
      case TIMESTAMP:
        return ((Instant) value).plus(Duration.ofDays(slot * 400L));
      default:
        throw new IllegalArgumentException("cannot tag " + type.withArticle() + " key");
    }
  }

  List<Fixture> traces() {
    return traces;
  }

  /** The merged fixture that runs every trace of the batch. */
  Fixture fixture() {
    return merged;
  }

  /**
   * One outcome per trace, its ids and keys those of the trace run alone. The processed count is
   * not reported per event, so each trace's is inferred: its events, less the late and quarantined
   * ones; compare the merged outcomes' counts to catch an event lost or processed twice.
   */
  List<FixtureOutcome> split(FixtureOutcome outcome) {
    List<OutcomeBuilder> parts = new ArrayList<>();
    int[] processed = events.clone();
    for (int i = 0; i < traces.size(); i++) {
      parts.add(new OutcomeBuilder());
    }
    for (FixtureOutcome.Change c : outcome.changelog) {
      parts
          .get(slot(c.eventId))
          .change(local(c.eventId), c.op, untag(c.values, tagOutputs, slot(c.eventId)));
    }
    for (FixtureOutcome.Dropped d : outcome.late) {
      processed[slot(d.eventId)]--;
      List<String> columns = tagColumn == null ? List.of() : List.of(tagColumn);
      parts
          .get(slot(d.eventId))
          .late(local(d.eventId), untag(d.record, columns, slot(d.eventId)), d.watermark);
    }
    for (FixtureOutcome.Quarantined q : outcome.quarantined) {
      processed[slot(q.eventId)]--;
      parts
          .get(slot(q.eventId))
          .quarantined(local(q.eventId), localReason(q.reason, slot(q.eventId)));
    }
    for (FixtureOutcome.Duplicate d : outcome.duplicates) {
      processed[slot(d.eventId)]--;
      List<String> columns = new ArrayList<>();
      if (tagColumn != null) {
        columns.add(tagColumn);
      }
      Map<String, Object> record = untag(d.record, columns, slot(d.eventId));
      if (idColumn != null && record.containsKey(idColumn)) {
        record.put(idColumn, tag(idType, record.get(idColumn), -slot(d.eventId)));
      }
      parts.get(slot(d.eventId)).duplicate(local(d.eventId), record);
    }
    List<FixtureOutcome> out = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      out.add(parts.get(i).processed(processed[i]).build());
    }
    return out;
  }

  private static final java.util.regex.Pattern CONFLICT =
      java.util.regex.Pattern.compile(
          "^(event_id `([^`]+)` = )(.*)( was first seen at partition )(\\d+)( offset .*)$",
          java.util.regex.Pattern.DOTALL);

  /**
   * A conflict's reason as the trace alone would give it: the id without its tag, the first event's
   * partition the trace's own. Other reasons name no partition and no value of a tagged column.
   */
  private String localReason(String reason, int slot) {
    java.util.regex.Matcher m = CONFLICT.matcher(reason);
    if (!m.matches()) {
      return reason;
    }
    String column = m.group(2);
    ColumnType type = column.equals(idColumn) ? idType : column.equals(tagColumn) ? tagType : null;
    String id = m.group(3);
    if (type != null && slot != 0) {
      Object tagged =
          type.kind() == ColumnType.Kind.STRING
              ? id
              : type.kind() == ColumnType.Kind.INT64
                  ? (Object) Long.valueOf(id)
                  : type.kind() == ColumnType.Kind.DECIMAL
                      ? new BigDecimal(id)
                      : type.kind() == ColumnType.Kind.DOUBLE ? (Object) Double.valueOf(id) : null;
      id = tagged == null ? id : String.valueOf(tag(type, tagged, -slot));
    }
    return m.group(1) + id + m.group(4) + Integer.parseInt(m.group(5)) % stride + m.group(6);
  }

  private Map<String, Object> untag(Map<String, Object> values, List<String> columns, int slot) {
    Map<String, Object> out = new LinkedHashMap<>(values);
    for (String c : columns) {
      if (out.containsKey(c)) {
        out.put(c, tag(tagType, out.get(c), -slot));
      }
    }
    return out;
  }

  private int slot(String eventId) {
    return partitionOf(eventId) / stride;
  }

  private String local(String eventId) {
    return partitionOf(eventId) % stride + eventId.substring(eventId.indexOf('-'));
  }

  private static int partitionOf(String eventId) {
    return Integer.parseInt(eventId.substring(0, eventId.indexOf('-')));
  }
}
