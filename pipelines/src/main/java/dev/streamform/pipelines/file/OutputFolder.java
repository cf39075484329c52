package dev.streamform.pipelines.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A file run's output folder, held by one run at a time (docs/decisions/0101): an exclusive OS lock
 * on {@value #LOCK_FILE} in the folder, which the operating system releases when the process ends,
 * however it ends (kill -9 included). The file stays; it names the run that holds it, as {@code pid
 * <pid> started <instant>}.
 *
 * <p>While a run replaces its outputs (one move per file) the folder holds {@value
 * #INCOMPLETE_FILE}, naming the run the same way; a run stopped between two moves leaves a mixed
 * set and that mark, which every reader of the outputs refuses ({@link #incomplete}) until a whole
 * run replaces the set.
 */
public final class OutputFolder implements AutoCloseable {
  /** The lock file, in the output folder. */
  public static final String LOCK_FILE = ".streamform.lock";

  /** The mark of a replacement under way, or stopped halfway. */
  public static final String INCOMPLETE_FILE = ".streamform-incomplete";

  /** The prefix of a run's temporary folder of parts, in the output folder. */
  static final String PARTS_PREFIX = ".parts-";

  private static final Pattern RUN = Pattern.compile("pid (\\d+) started (\\S+)");

  private final Path dir;
  private final FileChannel channel;
  private final FileLock lock;
  private final String run;
  private final List<String> removedParts;

  private OutputFolder(
      Path dir, FileChannel channel, FileLock lock, String run, List<String> removedParts) {
    this.dir = dir;
    this.channel = channel;
    this.lock = lock;
    this.run = run;
    this.removedParts = removedParts;
  }

  /** Another process (or another run in this one) holds the folder. */
  public static final class Busy extends IOException {
    private static final long serialVersionUID = 1L;

    Busy(Path dir, String holder) {
      super(
          "another streamform run"
              + (holder == null ? "" : " (" + holder + ")")
              + " is writing to "
              + dir
              + ": wait for it to end, or name another --output");
    }
  }

  /**
   * Takes the folder {@code dir} (created when missing) for this run: locks its {@value
   * #LOCK_FILE}, records this run in it, and removes the temporary parts folders that runs which
   * ended without removing them left (only a run that holds the lock may: no live run owns them).
   *
   * @throws Busy when another run holds it, naming that run when its lock file says which
   * @throws IOException when the lock file cannot be created or locked: the folder cannot be
   *     written
   */
  public static OutputFolder lock(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(LOCK_FILE);
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      // a run in this process holds it; reading the file through another channel and closing it
      // would release that run's lock (POSIX locks are the process's), so the holder goes unnamed
      channel.close();
      throw new Busy(dir, null);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      String holder = holder(channel);
      channel.close();
      throw new Busy(dir, holder);
    }
    String run = thisRun();
    try {
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((run + "\n").getBytes(StandardCharsets.UTF_8)), 0);
      List<String> removed = removeStaleParts(dir);
      return new OutputFolder(dir, channel, lock, run, removed);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** The folder. */
  public Path dir() {
    return dir;
  }

  /** The names of the parts folders of ended runs this run removed when it took the folder. */
  public List<String> removedParts() {
    return removedParts;
  }

  /** Marks the folder's set of outputs as being replaced, naming this run. */
  void markIncomplete() throws IOException {
    Path mark = dir.resolve(INCOMPLETE_FILE);
    Files.writeString(mark, run + "\n", StandardCharsets.UTF_8);
  }

  /** The set is whole again: the mark goes. */
  void markComplete() throws IOException {
    Files.deleteIfExists(dir.resolve(INCOMPLETE_FILE));
  }

  /** Releases the folder (its lock file stays: removing it would race the next run's lock). */
  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }

  /**
   * Empty when the outputs in {@code dir} are one run's whole set (or there are none); else why
   * they are not and the fix, for a reader of the outputs to refuse them with: "the outputs in DIR
   * are an incomplete set: a run (pid N, started T) was interrupted while replacing them, ...".
   */
  public static Optional<String> incomplete(Path dir) {
    Path mark = dir.resolve(INCOMPLETE_FILE);
    if (!Files.exists(mark)) {
      return Optional.empty();
    }
    String holder;
    try {
      holder = named(Files.readString(mark, StandardCharsets.UTF_8));
    } catch (IOException e) {
      holder = null; // the mark is there: that is what counts
    }
    return Optional.of(
        "the outputs in "
            + dir
            + " are an incomplete set: a run"
            + (holder == null ? "" : " (" + holder + ")")
            + " was interrupted while replacing them, or is replacing them now: run the model"
            + " again (streamform run) once no run writes there");
  }

  /** "pid 12, started 2026-..." from a lock file's or mark's line; null when it says no such. */
  private static String named(String text) {
    Matcher m = RUN.matcher(text);
    return m.find() ? "pid " + m.group(1) + ", started " + m.group(2) : null;
  }

  private static String holder(FileChannel channel) {
    try {
      ByteBuffer b = ByteBuffer.allocate(200);
      channel.read(b, 0);
      return named(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return null;
    }
  }

  private static String thisRun() {
    return "pid "
        + ProcessHandle.current().pid()
        + " started "
        + Instant.now().truncatedTo(ChronoUnit.SECONDS);
  }

  private static List<String> removeStaleParts(Path dir) throws IOException {
    List<String> removed = new ArrayList<>();
    try (Stream<Path> all = Files.list(dir)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        String name = p.getFileName().toString();
        if (name.startsWith(PARTS_PREFIX) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          deleteTree(p);
          removed.add(name);
        }
      }
    }
    removed.sort(Comparator.naturalOrder());
    return removed;
  }

  static void deleteTree(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary folder left behind is harmless: the next run that takes the folder removes it
    }
  }
}
