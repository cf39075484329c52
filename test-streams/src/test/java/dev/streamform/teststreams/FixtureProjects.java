package dev.streamform.teststreams;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/** The seed's fixture projects, and copies of them with a fixture or declaration rewritten. */
final class FixtureProjects {
  /** test-streams/fixtures/time, wherever Maven runs the tests from. */
  static final Path TIME = under("fixtures/time").toAbsolutePath();

  /** test-streams/{@code relative}, wherever Maven runs the tests from (the module or the root). */
  static Path under(String relative) {
    for (Path p : new Path[] {Paths.get(relative), Paths.get("test-streams").resolve(relative)}) {
      if (Files.isDirectory(p)) {
        return p;
      }
    }
    throw new IllegalStateException(relative + " not found from " + Paths.get("").toAbsolutePath());
  }

  /** A copy of seed project {@code name} in {@code dir}, without its fixtures. */
  static Path copy(String name, Path dir) {
    return copy(TIME.resolve(name), dir);
  }

  /** A copy of the fixture project at {@code from} in {@code dir}, without its fixtures. */
  static Path copy(Path from, Path dir) {
    Path to = dir.resolve(from.getFileName().toString());
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!from.relativize(f).startsWith("fixtures")) {
          Files.copy(f, target);
        }
      }
      Files.createDirectories(to.resolve("fixtures"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return to;
  }

  static Path write(Path project, String relative, String text) {
    try {
      Path f = project.resolve(relative);
      Files.createDirectories(f.getParent());
      Files.writeString(f, text);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private FixtureProjects() {}
}
