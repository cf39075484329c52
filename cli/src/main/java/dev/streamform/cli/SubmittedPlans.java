package dev.streamform.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The plans a project submitted to Flink clusters: each {@code run --runner flink --detach} writes
 * the manifest it submitted (what {@code streamform inspect-plan} prints) to {@code
 * <project>/target/flink-jobs/<model>/<job id>.json}, so that a later {@code run --from-savepoint}
 * can find the plan that wrote the savepoint and compare the one it would restore into with it
 * (docs/decisions/0121).
 */
final class SubmittedPlans {
  /** The folder of the records, under the project's folder. */
  static final String FOLDER = "target/flink-jobs";

  /**
   * How Flink 1.19 names a savepoint's folder ({@code AbstractFsCheckpointStorageAccess
   * .initializeLocationForSavepoint}): "savepoint-", the first 6 characters of the job id, "-", and
   * 12 random characters of 0-9a-f ({@code FileUtils.getRandomFilename}).
   */
  private static final Pattern SAVEPOINT = Pattern.compile("savepoint-([0-9a-f]{6})-[0-9a-f]+");

  private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");

  private SubmittedPlans() {}

  /** The record of job {@code jobId} of {@code model}. */
  static Path record(Path project, String model, String jobId) {
    return project.resolve(FOLDER).resolve(model).resolve(jobId + ".json");
  }

  /**
   * Writes {@code manifest} as the record of job {@code jobId} of {@code model}; empty when
   * written, else why not (the job runs all the same).
   */
  static Optional<String> write(Path project, String model, String jobId, String manifest) {
    if (!JOB_ID.matcher(jobId).matches()) {
      return Optional.of("the job id is unknown");
    }
    Path file = record(project, model, jobId);
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, manifest, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return Optional.empty();
    } catch (IOException e) {
      String line = dev.streamform.policies.project.FileErrors.line(e);
      return Optional.of(line != null ? line : file + ": " + e.getMessage());
    }
  }

  /** What a savepoint's location says of the job that wrote it, and the records that match it. */
  sealed interface Lookup {
    /** The location's last folder is not named as Flink names a savepoint's. */
    record NotNamed(String folder) implements Lookup {}

    /** The job id prefix the location names, and the records of jobs whose id starts with it. */
    record Named(String prefix, List<Path> records) implements Lookup {}
  }

  /**
   * The records under {@code project} of the job that wrote the savepoint at {@code location} (a
   * folder, a {@code file:} or other URI, or its {@code _metadata} file), of any model: a savepoint
   * restored into another model is found and compared all the same.
   */
  static Lookup find(Path project, String location) {
    String path = location.replaceAll("/+$", "");
    if (path.endsWith("/_metadata")) {
      path = path.substring(0, path.length() - "/_metadata".length());
    }
    String folder = path.substring(path.lastIndexOf('/') + 1);
    Matcher m = SAVEPOINT.matcher(folder);
    if (!m.matches()) {
      return new Lookup.NotNamed(folder);
    }
    String prefix = m.group(1);
    List<Path> found = new ArrayList<>();
    Path root = project.resolve(FOLDER);
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.walk(root, 2)) {
        files
            .filter(f -> f.getNameCount() == root.getNameCount() + 2)
            .filter(
                f -> {
                  String name = f.getFileName().toString();
                  return name.endsWith(".json")
                      && JOB_ID.matcher(name.substring(0, name.length() - 5)).matches()
                      && name.startsWith(prefix);
                })
            .sorted()
            .forEach(found::add);
      } catch (IOException | java.io.UncheckedIOException e) {
        // unreadable: no record found, said as such
      }
    }
    return new Lookup.Named(prefix, found);
  }
}
