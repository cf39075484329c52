package dev.streamform.cli;

import dev.streamform.teststreams.fixture.FixtureSuite;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code streamform test --watch}: waits for a change below the given paths and runs the fixtures
 * again, until stopped. A burst of changes (an editor writes a temporary file, then renames it) is
 * one run: after the first change the watch waits until the folders are quiet for {@link
 * #QUIET_MS}. Every folder below the paths is watched, folders made after the start too. A run that
 * fails or throws does not end the watch: its message is printed and the next change runs again.
 */
final class FileWatch {
  /** How long the folders must be quiet after a change before the run starts. */
  static final long QUIET_MS = 300;

  /** How often a waiting watch looks at its stop signal. */
  private static final long STOP_POLL_MS = 100;

  /** A run of the fixtures after a change to {@code changed}; its exit status. */
  interface Run {
    int run(List<Path> changed) throws IOException;
  }

  private final List<Path> roots;
  private final Set<Path> ignored;
  private final PrintWriter err;
  private final CountDownLatch stop;
  private final Set<Path> folders = new LinkedHashSet<>();

  /** The watched folders by real path: each watched once, under the name the walk found first. */
  private final java.util.Map<Path, Path> realFolders = new java.util.HashMap<>();

  /**
   * A watch of {@code paths} (a fixture file's project folder for a file) that ends when {@code
   * stop} is counted down (or the thread is interrupted); a change to one of {@code ignored} — what
   * the run writes itself, its report — does not start a run, or every run would start the next.
   */
  FileWatch(List<Path> paths, Set<Path> ignored, PrintWriter err, CountDownLatch stop) {
    this.roots =
        paths.stream()
            .map(Path::toAbsolutePath)
            .map(p -> Files.isDirectory(p) ? p : projectOf(p))
            .distinct()
            .collect(Collectors.toList());
    // by real path: the run may name its report through a link the watch does not, or the reverse
    this.ignored =
        ignored.stream().map(FileWatch::real).collect(Collectors.toCollection(LinkedHashSet::new));
    this.err = err;
    this.stop = stop;
  }

  /**
   * The folder watched for a fixture file: its project's ({@link FixtureSuite#projectOf}), so that
   * a change to the model or the sources re-runs it as a change to the fixture does; the file's own
   * folder when it is in no project.
   */
  static Path projectOf(Path file) {
    Path project = FixtureSuite.projectOf(file);
    return project != null ? project : file.toAbsolutePath().getParent();
  }

  /**
   * Runs {@code run} after every change below the paths until stopped; returns {@code status}, the
   * status of the run before the watch (what the command exits with).
   */
  int watch(int status, Run run) throws IOException, InterruptedException {
    try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
      while (true) {
        registerAll(watcher);
        err.println(
            "streamform test: watching "
                + folders.size()
                + (folders.size() == 1 ? " folder" : " folders")
                + " for changes (Ctrl-C to stop)");
        err.flush();
        List<Path> changed = nextChanges(watcher);
        if (changed == null) {
          return status;
        }
        try {
          run.run(changed);
        } catch (IOException | RuntimeException e) {
          // a file removed or unreadable mid-run: said in one line, and the watch goes on
          err.println("streamform test: " + message(e));
        }
      }
    }
  }

  /**
   * Waits for a change and for the quiet after it: the changed files, in order, without the ignored
   * ones; null when stopped first. Changes only to ignored files are waited through.
   */
  private List<Path> nextChanges(WatchService watcher) throws InterruptedException {
    Set<Path> changed = new LinkedHashSet<>();
    // paths whose first event in this burst was their creation: one gone again at the end was a
    // temporary file (sed -i, an editor's save through a file renamed over the real one)
    Set<Path> created = new HashSet<>();
    while (changed.isEmpty()) {
      WatchKey key = null;
      while (key == null) {
        if (stop.getCount() == 0) {
          return null;
        }
        key = watcher.poll(STOP_POLL_MS, TimeUnit.MILLISECONDS);
      }
      do {
        Path folder = (Path) key.watchable();
        for (WatchEvent<?> event : key.pollEvents()) {
          if (event.context() instanceof Path name) {
            Path path = folder.resolve(name).normalize();
            if (!ignored.contains(real(path)) && !isScratch(name) && changed.add(path)) {
              if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
                created.add(path);
              }
            }
          } else if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
            changed.add(folder); // events were lost: run anyway
          }
        }
        if (!key.reset()) {
          // the folder is gone; registerAll finds it if it comes back
          folders.remove(folder);
          realFolders.values().remove(folder);
        }
        key = watcher.poll(QUIET_MS, TimeUnit.MILLISECONDS);
      } while (key != null);
      registerAll(watcher); // folders made during the burst, before their files are run
      changed.removeIf(path -> created.contains(path) && !Files.exists(path));
      created.clear();
    }
    return new ArrayList<>(changed);
  }

  /**
   * An editor's swap or backup file (vim's {@code .x.yml.swp}, emacs's {@code x.yml~}, any hidden
   * file): written while a file is being edited, not when it is saved.
   */
  private static boolean isScratch(Path name) {
    // the same rule that leaves such files out of a project's fixtures
    return dev.streamform.policies.project.Fixture.isScratchFile(name.toString());
  }

  /**
   * Registers every folder below the roots not registered yet (registering again is harmless, but
   * walking is cheap and catches folders whose creation event came before their parent was
   * watched). Symbolic links are followed (a project given through one, a linked fixtures folder);
   * a folder reached twice (a link to a folder above it, or to one already walked) is watched once,
   * by its real path.
   */
  private void registerAll(WatchService watcher) {
    for (Path root : roots) {
      if (!Files.isDirectory(root)) {
        continue; // removed: watched again when it is back and a change elsewhere walks again
      }
      List<Path> found = new ArrayList<>();
      Set<Path> walked = new HashSet<>();
      try {
        Files.walkFileTree(
            root,
            EnumSet.of(FileVisitOption.FOLLOW_LINKS),
            Integer.MAX_VALUE,
            new SimpleFileVisitor<>() {
              @Override
              public FileVisitResult preVisitDirectory(Path folder, BasicFileAttributes attrs) {
                if (!walked.add(real(folder))) {
                  return FileVisitResult.SKIP_SUBTREE; // reached before through another name
                }
                found.add(folder);
                return FileVisitResult.CONTINUE;
              }

              @Override
              public FileVisitResult visitFileFailed(Path file, IOException e) {
                // a loop of links (FileSystemLoopException), a dangling link, a folder removed
                // while walking: left out; the next change walks again
                return FileVisitResult.CONTINUE;
              }
            });
      } catch (IOException | UncheckedIOException e) {
        continue; // the root removed while walking: the next change walks again
      }
      for (Path folder : found) {
        Path real = real(folder);
        if (realFolders.containsKey(real) || !folders.add(folder)) {
          continue;
        }
        realFolders.put(real, folder);
        try {
          folder.register(
              watcher,
              StandardWatchEventKinds.ENTRY_CREATE,
              StandardWatchEventKinds.ENTRY_MODIFY,
              StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException e) {
          // said once (the folder stays in the set): its changes do not start runs
          err.println("streamform test: cannot watch " + folder + ": " + message(e));
        }
      }
    }
  }

  /**
   * {@code path} with every link resolved: its real path, or for a file not there (yet: a report
   * before its first write) its folder's real path and its name; absolute and normalized when even
   * the folder is not there.
   */
  static Path real(Path path) {
    Path absolute = path.toAbsolutePath().normalize();
    try {
      return absolute.toRealPath();
    } catch (IOException e) {
      Path parent = absolute.getParent();
      if (parent == null || absolute.getFileName() == null) {
        return absolute;
      }
      try {
        return parent.toRealPath().resolve(absolute.getFileName());
      } catch (IOException again) {
        return absolute;
      }
    }
  }

  private static String message(Exception e) {
    Throwable cause = e instanceof UncheckedIOException ? e.getCause() : e;
    if (cause instanceof NoSuchFileException) {
      return cause.getMessage() + ": no such file or folder";
    }
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }
}
