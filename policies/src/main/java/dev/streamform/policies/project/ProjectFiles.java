package dev.streamform.policies.project;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The rule for a file a declaration names ({@code path:}, {@code kafka.properties:}, {@code
 * linear:}): it lies inside the project folder, so checking out a project and running it reads
 * nothing else of the machine. A reference is relative to the project folder; after {@code ..}
 * segments are resolved, and after symbolic links are followed when the file exists, it must still
 * be inside the folder.
 */
public final class ProjectFiles {
  private ProjectFiles() {}

  /** The usual fix for a reference outside the project folder. */
  static final String FIX =
      "copy the file into the project folder and name it relative to the folder";

  /**
   * Why {@code reference} (relative to the project folder {@code dir}) is not a file of the
   * project, or empty when it is (or would be, once created). A glob ({@code orders/*.jsonl}) is
   * checked by its segments: none may be {@code ..}.
   */
  public static Optional<String> outside(Path dir, String reference) {
    Path given;
    try {
      given = Path.of(reference);
    } catch (InvalidPathException e) {
      return Optional.of("'" + reference + "' is not a path (" + e.getReason() + ")");
    }
    if (given.isAbsolute()
        || reference.startsWith("/")
        || reference.startsWith("\\")
        || reference.startsWith("~")) {
      return Optional.of("'" + reference + "' is not relative to the project folder");
    }
    Path root = dir.toAbsolutePath().normalize();
    Path file = root.resolve(given).normalize();
    for (Path segment : given) {
      if (segment.toString().equals("..") && isGlob(reference)) {
        return Optional.of("'" + reference + "' leads outside the project folder (..)");
      }
    }
    if (!file.startsWith(root) || file.equals(root)) {
      return Optional.of("'" + reference + "' leads outside the project folder " + root);
    }
    if (Files.exists(file)) {
      try {
        Path real = file.toRealPath();
        Path realRoot = root.toRealPath();
        if (!real.startsWith(realRoot)) {
          return Optional.of(
              "'" + reference + "' is a link to " + real + ", outside the project folder");
        }
      } catch (IOException e) {
        return Optional.of("'" + reference + "' cannot be resolved (" + e.getMessage() + ")");
      }
    }
    return Optional.empty();
  }

  /** Whether {@code file} (a file the project reads) is inside {@code dir}, links followed. */
  public static boolean inside(Path dir, Path file) {
    try {
      return file.toRealPath().startsWith(dir.toAbsolutePath().normalize().toRealPath());
    } catch (IOException e) {
      return false;
    }
  }

  static boolean isGlob(String reference) {
    return reference.matches(".*[*?\\[{].*");
  }
}
