package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import dev.streamform.teststreams.fixture.Delivery;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The windowed seeds' fixtures hold however their items reach the pipeline (docs/semantics.md §7).
 */
class WindowedDeliveryTest {
  @TempDir Path dir;

  /**
   * A windowed fixture is fed by any {@link Delivery}, as a changelog fixture is: one element per
   * batch, a bounded {@code Create.of} and a shuffled one give the seeds' records every time.
   */
  @Test
  void aWindowedFixtureHoldsHoweverItsItemsAreDelivered() {
    Map<String, String> seeds = new LinkedHashMap<>();
    seeds.put("hourly-revenue", "fixtures/hourly_revenue.yml");
    seeds.put("two-partitions", "fixtures/partition_behind.yml");
    seeds.put("hopping-revenue", "fixtures/hopping_revenue.yml");
    seeds.forEach(
        (seed, fixture) -> {
          Path p = FixtureProjects.copy(seed, dir);
          FixtureProjects.write(
              p,
              fixture,
              FixtureProjects.read(FixtureProjects.TIME.resolve(seed).resolve(fixture)));
          for (Delivery delivery :
              new Delivery[] {
                Delivery.oneElementPerBatch(), Delivery.createOf(), Delivery.createOfShuffled(3)
              }) {
            FixtureVerdict v = StreamformFixtures.inProject(p).delivering(delivery).run(fixture);
            assertThat(seed + " " + delivery.describe() + ":\n" + v.render(), v.passed(), is(true));
          }
        });
  }
}
