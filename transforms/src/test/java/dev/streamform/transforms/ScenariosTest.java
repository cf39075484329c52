package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.file.Path;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every named scenario of {@link Scenarios} on the DirectRunner: exact outputs by PAssert, and the
 * same outputs by the file route the Flink parity test uses (so that route is checked too).
 */
class ScenariosTest {

  @Test
  void everyScenarioGivesItsExactOutputsOnTheDirectRunner() {
    Pipeline p = SeedStreams.pipeline();
    Scenarios.all()
        .forEach(
            (name, c) -> {
              Scenario s = Scenario.of(p, name, c.delivery, c.clock, c.model);
              PAssert.that(name + " changelog", s.changelog).containsInAnyOrder(c.changelog);
              PAssert.that(name + " late", s.late).containsInAnyOrder(c.late);
              PAssert.that(name + " quarantined", s.quarantined).containsInAnyOrder(c.quarantined);
            });
    p.run().waitUntilFinish();
  }

  @Test
  void theFileRouteSeesTheSameOutputs(@TempDir Path dir) throws Exception {
    Pipeline p = SeedStreams.pipeline();
    Scenarios.addAll(p, dir);
    p.run().waitUntilFinish();
    for (Map.Entry<String, Scenarios.Case> e : Scenarios.all().entrySet()) {
      Path d = dir.resolve(e.getKey());
      assertThat(
          e.getKey(), Scenario.readLines(d.resolve("changelog")), equalTo(e.getValue().changelog));
      assertThat(e.getKey(), Scenario.readLines(d.resolve("late")), equalTo(e.getValue().late));
      assertThat(
          e.getKey(),
          Scenario.readLines(d.resolve("quarantined")),
          equalTo(e.getValue().quarantined));
    }
  }
}
