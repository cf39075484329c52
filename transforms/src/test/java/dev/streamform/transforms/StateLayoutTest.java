package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.streamform.core.state.StateLayouts;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.LateAction;
import dev.streamform.transforms.decisions.LinearScorer;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.reflect.DoFnSignature;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A keyed stage's state layout — its state cells by id, their kinds and coders, its timers — is
 * recorded under the stage's {@link StateLayouts} version in {@code state-layouts.txt}. A layout
 * that moves without a new version fails here: a savepoint of the old layout would not restore, and
 * {@code plan} (which shows the versions in the state fingerprint) would not say so. Run with
 * {@code -Dstreamform.layouts.write=true} after raising the version to record the new layout; a
 * recorded version's layout is never rewritten. (A change inside a hand-written coder's bytes is
 * not seen here: its author raises the version by hand; docs/decisions/0010.)
 */
class StateLayoutTest {
  private static final Path RECORDED =
      Path.of("src/test/resources/dev/streamform/transforms/state-layouts.txt");

  private static final Map<String, Integer> VERSIONS =
      Map.of(
          "clock", StateLayouts.CLOCK,
          "dedup", StateLayouts.DEDUP,
          "changelog", StateLayouts.CHANGELOG,
          "windows", StateLayouts.WINDOWS,
          "decisions", StateLayouts.DECISIONS);

  @Test
  void everyKeyedStagesLayoutIsRecordedUnderItsVersion() throws IOException {
    Map<String, String> layouts = layouts();
    assertEquals(VERSIONS.keySet(), layouts.keySet(), "the keyed stages found in the pipeline");
    Map<String, String> recorded = new TreeMap<>(); // "stage version" -> layout
    List<String> lines = Files.exists(RECORDED) ? Files.readAllLines(RECORDED) : List.of();
    for (String line : lines) {
      if (!line.isBlank() && !line.startsWith("#")) {
        String[] parts = line.split(" ", 3);
        recorded.put(parts[0] + " " + parts[1], parts[2]);
      }
    }
    List<String> added = new ArrayList<>();
    for (Map.Entry<String, String> stage : layouts.entrySet()) {
      String id = stage.getKey() + " " + VERSIONS.get(stage.getKey());
      String was = recorded.get(id);
      if (was == null) {
        added.add(id + " " + stage.getValue());
      } else if (!was.equals(stage.getValue())) {
        fail(
            "the state layout of `"
                + stage.getKey()
                + "` moved, but its version is still "
                + VERSIONS.get(stage.getKey())
                + ": raise it in StateLayouts (savepoints of the old layout do not restore), then"
                + " record the new layout with -Dstreamform.layouts.write=true\n  recorded: "
                + was
                + "\n  now:      "
                + stage.getValue());
      }
    }
    if (!added.isEmpty()) {
      if (Boolean.getBoolean("streamform.layouts.write")) {
        List<String> all = new ArrayList<>(lines);
        all.addAll(added);
        Files.write(RECORDED, all, StandardCharsets.UTF_8);
      } else {
        fail("layouts not recorded yet (record with -Dstreamform.layouts.write=true):\n" + added);
      }
    }
    assertTrue(Files.exists(RECORDED));
  }

  /** Each keyed stage's layout, built (not run) on a pipeline that applies them all. */
  private static Map<String, String> layouts() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        p.apply(
                Create.empty(
                    dev.streamform.transforms.envelope.SourceRecordCoder.of(SeedStreams.ORDERS)))
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(
                "clock",
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .withContiguousOffsets()
                    .keepingLateEvents()
                    .withPartitions(0));
    clocked.events().apply("dedup", Deduplicate.byId("customer_id", Duration.standardMinutes(10)));
    clocked
        .events()
        .apply(
            "changelog",
            KeyedChangelog.by("customer_id")
                .aggregating(Aggregation.sum("amount").as("total"))
                .withRetention(Duration.standardMinutes(10)));
    clocked
        .events()
        .apply(
            "windows",
            WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                .forModel("hourly")
                .by("customer_id")
                .aggregating(Aggregation.sum("amount").as("revenue"))
                .withAllowedLateness(Duration.standardHours(1)));
    clocked
        .events()
        .apply(
            "decisions",
            ScoreEvents.forModel("risk")
                .by("customer_id")
                .withFeatures(Aggregation.sum("amount").as("spend_1h"))
                .over(Duration.standardHours(1))
                .scoredBy(LinearScorer.of(Map.of("spend_1h", 0.01), 0, "m"))
                .withLateness(Duration.standardMinutes(10))
                .onLateEvents(LateAction.REVISE)
                .lateEventsUpdateState(true));
    Map<String, TreeSet<String>> byStage = new TreeMap<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            DoFn<?, ?> fn = fnOf(node.getTransform());
            if (fn == null) {
              return;
            }
            DoFnSignature signature = DoFnSignatures.getSignature(fn.getClass());
            if (signature.stateDeclarations().isEmpty()
                && signature.timerDeclarations().isEmpty()) {
              return;
            }
            String stage = node.getFullName().split("/")[0];
            byStage.computeIfAbsent(stage, s -> new TreeSet<>()).add(layoutOf(fn, signature));
          }
        });
    Map<String, String> layouts = new TreeMap<>();
    byStage.forEach((stage, fns) -> layouts.put(stage, String.join(" ", fns)));
    return layouts;
  }

  private static DoFn<?, ?> fnOf(PTransform<?, ?> transform) {
    if (transform instanceof ParDo.MultiOutput<?, ?> m) {
      return m.getFn();
    }
    if (transform instanceof ParDo.SingleOutput<?, ?> s) {
      return s.getFn();
    }
    return null;
  }

  private static String layoutOf(DoFn<?, ?> fn, DoFnSignature signature) {
    List<String> cells = new ArrayList<>();
    new TreeMap<>(signature.stateDeclarations())
        .forEach((id, declaration) -> cells.add(id + "=" + spec(fn, declaration.field())));
    new TreeMap<>(signature.timerDeclarations())
        .forEach((id, declaration) -> cells.add("timer:" + id));
    return fn.getClass().getSimpleName() + "{" + String.join(",", cells) + "}";
  }

  private static String spec(DoFn<?, ?> fn, Field field) {
    try {
      field.setAccessible(true);
      StateSpec<?> spec = (StateSpec<?>) field.get(fn);
      return spec.match(
          new StateSpec.Cases<String>() {
            @Override
            public String dispatchValue(Coder<?> coder) {
              return "value(" + coder(coder) + ")";
            }

            @Override
            public String dispatchBag(Coder<?> coder) {
              return "bag(" + coder(coder) + ")";
            }

            @Override
            public String dispatchOrderedList(Coder<?> coder) {
              return "orderedList(" + coder(coder) + ")";
            }

            @Override
            public String dispatchCombining(Combine.CombineFn<?, ?, ?> fn, Coder<?> coder) {
              return "combining(" + fn.getClass().getSimpleName() + "," + coder(coder) + ")";
            }

            @Override
            public String dispatchMap(Coder<?> keys, Coder<?> values) {
              return "map(" + coder(keys) + "," + coder(values) + ")";
            }

            @Override
            public String dispatchSet(Coder<?> coder) {
              return "set(" + coder(coder) + ")";
            }

            @Override
            public String dispatchMultimap(Coder<?> keys, Coder<?> values) {
              return "multimap(" + coder(keys) + "," + coder(values) + ")";
            }
          });
    } catch (IllegalAccessException e) {
      throw new AssertionError(e);
    }
  }

  /** A coder by its class and its components' classes (a row coder's schema is the model's). */
  private static String coder(Coder<?> coder) {
    if (coder == null) {
      return "inferred";
    }
    String name = coder.getClass().getSimpleName();
    if (coder instanceof StructuredCoder<?> structured && !(coder instanceof RowCoder)) {
      List<String> parts = new ArrayList<>();
      structured.getComponents().forEach(c -> parts.add(coder(c)));
      return parts.isEmpty() ? name : name + "<" + String.join(",", parts) + ">";
    }
    return name;
  }
}
