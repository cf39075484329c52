package dev.streamform.sink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A database that goes away just as the pool's first connection is made (a restart at a sink's
 * first write) must not leave the pool unusable once it is back. HikariCP reads the server's
 * default isolation level from its first connection only; when that read failed with a connection
 * error it kept -1 and set it on every later connection ("Transaction isolation level -1 not
 * supported"), so every write of the run failed until its retry gave up.
 */
class FirstConnectionDroppedTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @Test
  void aPoolWhoseFirstConnectionDroppedAsItAskedTheIsolationLevelWorksOnceTheDatabaseAnswers()
      throws Exception {
    String url = POSTGRES.newDatabase();
    URI direct = URI.create(url.substring("jdbc:".length()));
    try (DroppingProxy proxy = new DroppingProxy(direct.getPort());
        HikariDataSource pool =
            JdbcTarget.of(url.replace(":" + direct.getPort() + "/", ":" + proxy.port() + "/"))
                .withUser("postgres")
                .openPool("first-dropped", 2, 10_000)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SELECT 1")) {
        r.next();
        assertThat(r.getInt(1), equalTo(1));
      }
      // the check saw what it plants: the pool's first connection was dropped at its second query
      assertThat(proxy.dropped.get(), equalTo(1));
    }
  }

  /**
   * Forwards 127.0.0.1 connections to PostgreSQL; the first one is closed when its client sends its
   * second query (after the start-up exchange and the pool's validity check: the one asking for the
   * isolation level), as a server stopping at that moment does.
   */
  private static final class DroppingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();

    DroppingProxy(int target) throws IOException {
      this.target = target;
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t = new Thread(this::accept, "dropping-proxy");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
          boolean first = accepted.getAndIncrement() == 0;
          pump(upstream.getInputStream(), client.getOutputStream(), client, upstream);
          if (first) {
            Thread t = new Thread(() -> dropAtFirstQuery(client, upstream), "dropping-proxy-first");
            t.setDaemon(true);
            t.start();
          } else {
            pump(client.getInputStream(), upstream.getOutputStream(), client, upstream);
          }
        } catch (IOException e) {
          return;
        }
      }
    }

    /** Client to server, message by message: untyped start-up messages, then typed ones. */
    private void dropAtFirstQuery(Socket client, Socket upstream) {
      try {
        DataInputStream in = new DataInputStream(client.getInputStream());
        OutputStream out = upstream.getOutputStream();
        boolean started = false;
        int queries = 0;
        while (true) {
          byte type = 0;
          if (started) {
            type = in.readByte();
          }
          int length = in.readInt();
          byte[] body = new byte[length - 4];
          in.readFully(body);
          if (started && (type == 'Q' || type == 'P') && ++queries == 2) {
            dropped.incrementAndGet();
            client.close();
            upstream.close();
            return;
          }
          if (started) {
            out.write(type);
          }
          out.write(
              new byte[] {
                (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
              });
          out.write(body);
          out.flush();
          if (!started) {
            int code =
                ((body[0] & 0xff) << 24)
                    | ((body[1] & 0xff) << 16)
                    | ((body[2] & 0xff) << 8)
                    | (body[3] & 0xff);
            // an SSL or GSS encryption request is answered before the start-up message
            started = code != 80877103 && code != 80877104;
          }
        }
      } catch (IOException e) {
        close(client, upstream);
      }
    }

    private static void pump(InputStream from, OutputStream to, Socket a, Socket b) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[8192];
                try {
                  for (int n; (n = from.read(buffer)) >= 0; ) {
                    to.write(buffer, 0, n);
                    to.flush();
                  }
                } catch (IOException e) {
                  // either side closed
                }
                close(a, b);
              },
              "dropping-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    private static void close(Socket a, Socket b) {
      try {
        a.close();
      } catch (IOException ignored) {
        // closing
      }
      try {
        b.close();
      } catch (IOException ignored) {
        // closing
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
