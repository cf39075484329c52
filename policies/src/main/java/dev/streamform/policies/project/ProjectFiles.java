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

  /**
   * The files a {@code path:} of a file source names, relative to the project folder {@code
   * projectDir}: one file, or a glob's matches in name order; empty when none exists.
   */
  public static java.util.List<Path> matching(Path projectDir, String pattern) {
    Path root = projectDir.toAbsolutePath().normalize();
    if (!pattern.matches(".*[*?\\[{].*")) {
      Path f = root.resolve(pattern).normalize();
      return Files.isRegularFile(f) ? java.util.List.of(f) : java.util.List.of();
    }
    java.nio.file.PathMatcher matcher =
        java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + pattern);
    try (java.util.stream.Stream<Path> all = Files.walk(root)) {
      return all.filter(Files::isRegularFile)
          .filter(f -> matcher.matches(root.relativize(f)))
          .sorted(java.util.Comparator.comparing(f -> root.relativize(f).toString()))
          .collect(java.util.stream.Collectors.toList());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot list " + root, e);
    }
  }

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

  /** Whether {@code reference} is a glob ({@code orders/*.jsonl}) rather than a file's name. */
  public static boolean isGlob(String reference) {
    return reference.matches(".*[*?\\[{].*");
  }
}
