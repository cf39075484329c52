package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key renamed by the query (customer_id AS customer) is generated, batched and compared right.
 */
class FuzzAliasedKeyTest {

  @Test
  void tracesOfAModelWithAnAliasedKeyAgreeWithTheOracle(@TempDir Path dir) throws Exception {
    Path project = dir.resolve("aliased");
    Files.createDirectories(project.resolve("models"));
    Files.copy(
        FuzzProjects.seed("retention").resolve("sources.yml"), project.resolve("sources.yml"));
    FuzzProjects.write(
        project,
        "streamform.yml",
        "models:\n  spend:\n    materialized: upsert\n    key: [customer]\n    retention: 10m\n");
    FuzzProjects.write(
        project,
        "models/spend.sql",
        "SELECT customer_id AS customer, SUM(amount) AS total, COUNT(*) AS orders"
            + " FROM source('orders') GROUP BY customer_id");
    DeclaredModel model = FuzzProjects.model(project, "spend");
    StringWriter log = new StringWriter();
    FuzzRun.Result result = FuzzProjects.onDirect(model, 20, 11, dir.resolve("out"), log);
    assertEquals(20, result.agreeing, log.toString());
  }
}
