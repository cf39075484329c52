package dev.streamform.policies.project;

import com.google.auto.value.AutoValue;
import dev.streamform.policies.declarations.GateThresholds;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Streamform project folder that passed every check of {@code streamform check}: its sources
 * ({@code sources.yml}), its models ({@code streamform.yml} with {@code models/<name>.sql}), each
 * model reading a declared source. Immutable; maps keep file order.
 */
@AutoValue
public abstract class Project {

  /** The project folder, as given to {@link #load(Path)}. */
  public abstract Path dir();

  /** Sources by name, in {@code sources.yml} order. */
  public abstract Map<String, SourceDeclaration> sources();

  /** Models by name, in {@code streamform.yml} order. */
  public abstract Map<String, ModelDeclaration> models();

  /**
   * What the project allows but doubts, each naming file, line and key (e.g. a monthly window whose
   * {@code allowed_lateness} is longer than a month); {@code check} prints them.
   */
  public abstract List<Problem> warnings();

  /**
   * The release gates' thresholds ({@code gates:} in {@code streamform.yml}), the defaults of
   * docs/semantics.md §10 where it declares none.
   */
  public abstract GateThresholds gates();

  /**
   * The file sources whose {@code path:} matches no file, each a problem at its line of {@code
   * sources.yml}: {@code check} warns of them, {@code run} refuses them; {@code test} does not need
   * them (a fixture's events are its own), so loading does not refuse them.
   */
  public List<Problem> missingFiles() {
    String text;
    try {
      text = java.nio.file.Files.readString(dir().resolve(SourcesFile.NAME));
    } catch (java.io.IOException | RuntimeException e) {
      return List.of(); // loaded from it a moment ago: a file gone since is run's to say
    }
    return SourcesFile.missingFiles(dir(), text);
  }

  /**
   * The data files of the file sources that {@code run} cannot read — the file system refuses them
   * (permission denied), or they are saved as UTF-16 or UTF-32 (ADR 0131) — each a problem at its
   * source's line of {@code sources.yml} in the words {@code run} refuses it with: unlike a missing
   * file (a project may be tested before its data exists), such a file is there and {@code run}
   * would fail on it, so {@code check} reports it as a problem. Loading does not read the data
   * files.
   */
  public List<Problem> unreadableFiles() {
    String text;
    try {
      text = java.nio.file.Files.readString(dir().resolve(SourcesFile.NAME));
    } catch (java.io.IOException | RuntimeException e) {
      return List.of(); // loaded from it a moment ago: a file gone since is run's to say
    }
    return SourcesFile.unreadableFiles(dir(), text, java.nio.file.Files::newInputStream);
  }

  /**
   * Reads and checks the project in {@code dir}.
   *
   * @throws InvalidProjectException with every problem found (a missing folder or file, malformed
   *     YAML, a broken rule), in file and line order
   */
  public static Project load(Path dir) throws InvalidProjectException {
    return ProjectLoader.load(dir);
  }

  /**
   * The project folder that holds {@code path} when {@code path} is a folder or file inside a
   * project rather than a project folder (e.g. {@code gs/fixtures} or {@code gs/fixtures/f.yml});
   * {@link #load} then reports it as such.
   */
  public static Optional<Path> folderHolding(Path path) {
    return ProjectLoader.projectHolding(path);
  }

  /** Whether {@code file} is a fixture file: a .yml file in a folder named fixtures. */
  public static boolean isFixtureFile(Path file) {
    return ProjectLoader.isFixtureFile(file);
  }

  static Project create(
      Path dir,
      Map<String, SourceDeclaration> sources,
      Map<String, ModelDeclaration> models,
      List<Problem> warnings,
      GateThresholds gates) {
    return new AutoValue_Project(
        dir,
        Collections.unmodifiableMap(new LinkedHashMap<>(sources)),
        Collections.unmodifiableMap(new LinkedHashMap<>(models)),
        List.copyOf(warnings),
        gates);
  }

  /**
   * The checked sources of {@code dir/sources.yml} alone, for a model written in Java rather than
   * SQL (no {@code streamform.yml} or {@code models/} needed).
   *
   * @throws InvalidProjectException with every problem of {@code sources.yml}
   */
  public static Map<String, SourceDeclaration> loadSources(Path dir)
      throws InvalidProjectException {
    return ProjectLoader.loadSources(dir);
  }

  /** The source {@code model} reads. */
  public SourceDeclaration sourceOf(ModelDeclaration model) {
    return sources().get(model.source());
  }
}
