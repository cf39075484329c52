package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.windows.MisorderedWindows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fixtures compare the order the keyed stage emitted a key's records in, as the records number
 * themselves (docs/decisions/0024), not an order the harness rebuilds from the events or the
 * revision numbers: a stage that emits a key's updates swapped, or a window's revision 2 before its
 * revision 1 — values and numbers all right — fails a fixture written by hand.
 */
class EmissionOrderTest {
  @TempDir Path dir;

  private static final String LATE = "late-event/fixtures/late_event.yml";
  private static final String HOURLY = "hourly-revenue/fixtures/hourly_revenue.yml";

  private Fixture fixture(String seed, String relative, Path[] project) throws Exception {
    Path p = FixtureProjects.copy(seed, dir.resolve(seed + "-" + System.nanoTime()));
    FixtureProjects.write(
        p, "fixtures/f.yml", FixtureProjects.read(FixtureProjects.TIME.resolve(relative)));
    project[0] = p;
    return Fixture.load(Project.load(p), p.resolve("fixtures/f.yml"));
  }

  @Test
  void aKeysUpdatesEmittedSwappedFailTheFixture() throws Exception {
    Path[] p = new Path[1];
    Fixture f = fixture("late-event", LATE, p);
    DeclaredModel model = DeclaredModel.of(Project.load(p[0]), "customer_metrics");
    FixtureRunner runner = FixtureRunner.on(RunnerChoice.direct());

    FixtureVerdict right =
        FixtureVerdict.judge(
            f, model, runner.run(model, f, model.changelog(), model.outputColumns()));
    assertTrue(right.passed(), right.render());

    FixtureOutcome swapped = runner.run(model, f, swappedUpdates(model), model.outputColumns());
    FixtureVerdict v = FixtureVerdict.judge(f, model, swapped);
    System.out.println(v.render());
    assertFalse(v.passed(), "updates 30 and 31 emitted swapped passed:\n" + v.render());
    assertThat(v.render(), containsString("`total_spend` is 31, expected 30"));
  }

  @Test
  void aWindowsRevision2EmittedBeforeRevision1FailsTheFixture() throws Exception {
    Path[] p = new Path[1];
    Fixture f = fixture("hourly-revenue", HOURLY, p);
    DeclaredModel model = DeclaredModel.of(Project.load(p[0]), "hourly_revenue");
    FixtureRunner runner = FixtureRunner.on(RunnerChoice.direct());

    FixtureVerdict right = FixtureVerdict.judge(f, model, runner.run(model, f));
    assertTrue(right.passed(), right.render());

    FixtureOutcome misordered =
        runner.run(
            model.declaredSource(),
            f,
            new MisorderedWindows(model.windowAggregate()),
            model.outputColumns());
    FixtureVerdict v =
        FixtureVerdict.judge(
            f, model.declaredSource(), misordered, model.outputColumns(), model.windowAggregate());
    System.out.println(v.render());
    assertFalse(v.passed(), "revision 2 emitted before revision 1 passed:\n" + v.render());
    assertThat(v.render(), containsString("`status` is corrected, expected on_time"));
  }

  /**
   * A planted defect, test code only: the model's real changelog, whose records then leave each key
   * with its last two updates swapped, numbered as this stage emits them.
   */
  private static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> swappedUpdates(
      DeclaredModel model) {
    return new PTransform<>("SwappedUpdates") {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        PCollection<ChangelogRecord> real = events.apply("Real", model.changelog());
        Coder<ChangelogRecord> coder = real.getCoder();
        return real.apply(
                "ByKey",
                WithKeys.of((ChangelogRecord r) -> r.key().getValues().toString())
                    .withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), coder))
            .apply("LastTwoSwapped", ParDo.of(new LastTwoSwapped(coder)))
            .setCoder(coder);
      }
    };
  }

  private static final class LastTwoSwapped
      extends DoFn<KV<String, ChangelogRecord>, ChangelogRecord> {
    @StateId("records")
    private final StateSpec<BagState<ChangelogRecord>> recordsSpec;

    @TimerId("flush")
    private final TimerSpec flushSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    LastTwoSwapped(Coder<ChangelogRecord> coder) {
      this.recordsSpec = StateSpecs.bag(coder);
    }

    @ProcessElement
    public void process(
        @Element KV<String, ChangelogRecord> record,
        @StateId("records") BagState<ChangelogRecord> records,
        @TimerId("flush") Timer flush) {
      records.add(record.getValue());
      flush.set(GlobalWindow.INSTANCE.maxTimestamp());
    }

    @OnTimer("flush")
    public void flush(
        OnTimerContext context,
        @StateId("records") BagState<ChangelogRecord> records,
        OutputReceiver<ChangelogRecord> out) {
      List<ChangelogRecord> list = new ArrayList<>();
      records.read().forEach(list::add);
      // as the real stage emitted them
      list.sort(
          Comparator.comparing((ChangelogRecord r) -> r.emittedAt())
              .thenComparingInt(ChangelogRecord::emission));
      int n = list.size();
      if (n >= 3) {
        ChangelogRecord last = list.get(n - 1);
        list.set(n - 1, list.get(n - 2));
        list.set(n - 2, last);
      }
      Instant now = context.fireTimestamp();
      int emission = 0;
      for (ChangelogRecord r : list) {
        out.output(r.emitted(now, emission++));
      }
      records.clear();
    }
  }
}
