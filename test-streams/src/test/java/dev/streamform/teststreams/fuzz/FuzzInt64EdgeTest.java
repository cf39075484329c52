package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WHERE clause with the int64 edge as a literal ({@code qty * 9223372036854775807 > 0}): the
 * generator draws values near the clause's literals, but not a literal's neighbour outside int64
 * (it threw "Overflow"), nor one near the edge for a column a SUM or AVG adds up (a sum that
 * overflows fails the run by design; the oracle threw "long overflow").
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
  }
}
