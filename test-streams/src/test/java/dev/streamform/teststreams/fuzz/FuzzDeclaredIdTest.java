package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scoring model whose source declares a timestamp or a decimal column as its {@code event_id}:
 * the pipeline and the oracle name each event (its decisions' {@code event_id}, their {@code
 * decision_id} hash, a conflict's reason) with the same text ({@code DeclaredId}). Before, a
 * timestamp id was {@code 2026-08-30T10:00:01.000Z} in the pipeline and {@code
 * 2026-08-30T10:00:01Z} in the oracle, so 29 of 30 traces disagreed.
 */
class FuzzDeclaredIdTest {

  @ParameterizedTest
  @ValueSource(strings = {"received_at", "amount"})
  void decisionsNamedByATimestampOrDecimalIdAgreeWithTheOracle(String idColumn, @TempDir Path dir)
      throws Exception {
    Path from = Path.of("fixtures/decisions/retried_receipts");
    Path project = dir.resolve("receipts");
    Files.createDirectories(project.resolve("models"));
    Files.copy(from.resolve("streamform.yml"), project.resolve("streamform.yml"));
    try (var models = Files.list(from.resolve("models"))) {
      for (Path f : models.toList()) {
        Files.copy(f, project.resolve("models").resolve(f.getFileName()));
      }
    }
    String sources = Files.readString(from.resolve("sources.yml"));
    FuzzProjects.write(
        project,
        "sources.yml",
        sources.replaceAll("(?m)^    event_id: receipt_id.*$", "    event_id: " + idColumn));
    DeclaredModel model = FuzzProjects.model(project, "receipt_risk");
    StringWriter log = new StringWriter();
    FuzzRun.Result result = FuzzProjects.onDirect(model, 12, 211814, dir.resolve("out"), log);
    assertEquals(12, result.agreeing, log.toString());
  }
}
