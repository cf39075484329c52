package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fuzzer catches a planted bug — a model whose retention edge is exclusive ({@code W >
 * latest + retention} instead of {@code >=}) — and shrinks it to a small fixture that the broken
 * model fails and the real one passes.
 */
class PlantedBugTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  /**
   * The declared model, but every event's time seen 1 ms later by the changelog: each key's
   * {@code latest + retention} moves 1 ms later, so its state survives {@code W = latest +
   * retention} — an exclusive edge. (Shifting the watermark at arrival instead no longer plants
   * anything: since the order-proof hand-over, expiry is decided by the changelog's event-time timer,
   * which fires at the edge before any event whose partition's watermark has reached it is applied.)
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> exclusiveRetention(
      DeclaredModel model) {
    return new PTransform<>("ExclusiveRetentionEdge") {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        return events
            .apply("OneMsLater", MapElements.into(TypeDescriptor.of(TimedEvent.class))
                .via((TimedEvent e) -> TimedEvent.of(oneMsLater(e.envelope()),
                    e.watermarkAtArrival(), e.keptLate(), e.stamp())))
            .setCoder(events.getCoder())
            .apply(model.changelog());
      }
    };
  }

  private static Envelope oneMsLater(Envelope e) {
    return Envelope.event(
        SourceRecord.of(e.partition(), e.offset(), e.ingestTime(), e.record()), e.eventTime().plus(1));
  }

  @Test
  void anExclusiveRetentionEdgeIsCaughtAndShrunk(@TempDir Path dir) throws Exception {
    Path projectDir = FuzzProjects.seed("retention");
    DeclaredModel model = FuzzProjects.model(projectDir, "customer_metrics");
    Fuzzer.Target broken = Fuzzer.Target.of("direct (exclusive retention edge)",
        f -> DIRECT.run(model, f, exclusiveRetention(model), model.outputColumns()));
    StringWriter log = new StringWriter();
    FuzzRun.Result result = new FuzzRun(model, Fuzzer.of(model, 40), new PrintWriter(log))
        .run(20, 3, List.of(broken), dir);

    assertFalse(result.allAgree(), log.toString());
    assertEquals(1, result.fixtures.size(), log.toString());
    Path file = result.fixtures.get(0);
    String text = Files.readString(file);
    assertTrue(text.contains("expect:"), text);

    Project project = Project.load(projectDir);
    Fixture fixture = Fixture.load(project, file);
    assertTrue(fixture.given().size() <= 6, log + "\n" + text);
    assertTrue(judge(fixture, model, Oracle.of(model).run(fixture)).passed(), text);
    assertTrue(judge(fixture, model, DIRECT.run(model, fixture)).passed(), text);
    FixtureVerdict caught = judge(fixture, model,
        DIRECT.run(model, fixture, exclusiveRetention(model), model.outputColumns()));
    assertFalse(caught.passed(), text);
  }

  private static FixtureVerdict judge(Fixture fixture, DeclaredModel model, FixtureOutcome outcome) {
    return FixtureVerdict.judge(fixture, FixtureStream.compile(fixture, model), outcome,
        model.source(), model.outputColumns());
  }
}
