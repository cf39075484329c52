package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WHERE clause with the int64 edge as a literal ({@code qty * 9223372036854775807 > 0}): the
 * generator draws values near the clause's literals, but not a literal's neighbour outside int64
 * (it threw "Overflow"). For a column a SUM or AVG adds up, such values make sums that would
 * overflow: the pipeline and the oracle both quarantine the event (ADR 0074) and agree on every
 * trace, for an upsert model and for hopping windows, where one event is in two windows.
 */
class FuzzInt64EdgeTest {

  @Test
  void aWhereClauseAtTheInt64EdgeIsFuzzedAndAgrees(@TempDir Path dir) throws Exception {
    Path project = dir.resolve("edge");
    Files.createDirectories(project.resolve("models"));
    FuzzProjects.write(
        project,
        "sources.yml",
        """
        sources:
          orders:
            connector: kafka
            topic: orders
            format: json
            schema:
              customer_id: int64
              qty: int64
              region: string
              price: double
              amount: decimal(12,2)
              ordered_at: timestamp
            event_time: ordered_at
            watermark: 5m
        """);
    FuzzProjects.write(
        project, "streamform.yml", "models:\n  m:\n    key: [customer_id]\n    retention: 20m\n");
    FuzzProjects.write(
        project,
        "models/m.sql",
        "SELECT customer_id, SUM(qty) AS q, AVG(qty) AS aq, MAX(price) AS p FROM source('orders')"
            + " WHERE (qty / 2 * 2 <> qty OR qty * 9223372036854775807 > 0 OR amount / 0 IS NULL)"
            + " AND price * 9223372036854775807 <> 1 AND region NOT IN ('x', 'y')"
            + " GROUP BY customer_id");
    DeclaredModel model = FuzzProjects.model(project, "m");
    StringWriter log = new StringWriter();
    FuzzRun.Result result = FuzzProjects.onDirect(model, 20, 5, dir.resolve("out"), log);
    assertEquals(20, result.agreeing, log.toString());
    assertTrue(overflowing(model, 20, 5, f -> Oracle.of(model).run(f)) > 0, "no trace overflowed");

    FuzzProjects.write(
        project,
        "streamform.yml",
        "models:\n  m:\n    key: [customer_id]\n    window: { size: 1h, every: 30m }\n");
    DeclaredModel windowed = FuzzProjects.model(project, "m");
    StringWriter windowedLog = new StringWriter();
    FuzzRun.Result windows =
        FuzzProjects.onDirect(windowed, 20, 5, dir.resolve("out-windowed"), windowedLog);
    assertEquals(20, windows.agreeing, windowedLog.toString());
    assertTrue(
        overflowing(windowed, 20, 5, f -> WindowedOracle.of(windowed).outcome(f)) > 0,
        "no trace overflowed");
  }

  /** How many of the generated traces have an event quarantined for a sum that would overflow. */
  private static int overflowing(
      DeclaredModel model,
      int traces,
      long seed,
      java.util.function.Function<Fixture, FixtureOutcome> oracle) {
    TraceGenerator generator = TraceGenerator.forModel(model);
    int overflowing = 0;
    for (int i = 0; i < traces; i++) {
      if (oracle.apply(generator.generate(seed, i)).quarantined.stream()
          .anyMatch(q -> q.reason.contains("would overflow"))) {
        overflowing++;
      }
    }
    return overflowing;
  }
}
