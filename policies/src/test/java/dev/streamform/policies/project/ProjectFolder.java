package dev.streamform.policies.project;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** A project folder written by a test, file by file, starting from the seed's valid project. */
final class ProjectFolder {
  static final String SOURCES =
      """
      sources:
        orders:
          connector: kafka
          topic: orders
          format: json
          schema:
            customer_id: int64
            amount: decimal(12,2)
            ordered_at: timestamp
          event_time: ordered_at
          watermark: 5m
          late_events: drop
      """;

  static final String MODELS =
      """
      models:
        customer_metrics:
          materialized: upsert
          key: [customer_id]
      """;

  static final String SQL =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY customer_id\n";

  private final Path dir;

  private ProjectFolder(Path dir) {
    this.dir = dir;
  }

  /** The folder {@code dir}, as it is. */
  static ProjectFolder at(Path dir) {
    return new ProjectFolder(dir);
  }

  /** The seed's valid project in {@code dir}. */
  static ProjectFolder seed(Path dir) {
    return new ProjectFolder(dir).sources(SOURCES).models(MODELS).sql("customer_metrics", SQL);
  }

  ProjectFolder sources(String text) {
    return write("sources.yml", text);
  }

  ProjectFolder models(String text) {
    return write("streamform.yml", text);
  }

  ProjectFolder sql(String model, String text) {
    return write("models/" + model + ".sql", text);
  }

  ProjectFolder write(String file, String text) {
    try {
      Path path = dir.resolve(file);
      Files.createDirectories(path.getParent());
      Files.writeString(path, text);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  ProjectFolder delete(String file) {
    try {
      Files.delete(dir.resolve(file));
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path dir() {
    return dir;
  }

  Project load() throws InvalidProjectException {
    return Project.load(dir);
  }

  /** The problems {@code streamform check} would print, one string each. */
  List<String> problems() {
    InvalidProjectException e = assertThrows(InvalidProjectException.class, this::load);
    return e.problems().stream().map(Problem::toString).collect(Collectors.toList());
  }
}
