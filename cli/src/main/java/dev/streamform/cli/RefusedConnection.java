package dev.streamform.cli;

import java.net.ConnectException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What to do about a refused connection of a run, {@code streamform run} and {@code streamform
 * test} alike: a refused connection says only "Connection refused", and which server refused
 * depends on what the run connects to — the Flink cluster of {@code --flink-master}, the PostgreSQL
 * database of {@code --jdbc-url}, the Kafka broker of {@code --bootstrap-servers}. The exception's
 * own chain names the client that failed when it can (its classes and the top frames of the refused
 * connection's stack); else the address in its message; else the one server the run connects to.
 */
final class RefusedConnection {

  /** A server a run connects to. */
  enum Server {
    FLINK,
    POSTGRES,
    KAFKA
  }

  /** What a run connects to: each field null when the run does not connect to that server. */
  record Endpoints(String flinkMaster, String jdbc, String bootstrapServers) {

    static final Endpoints NONE = new Endpoints(null, null, null);

    /** A run that connects only to the database {@code jdbc} describes. */
    static Endpoints database(String jdbc) {
      return new Endpoints(null, jdbc, null);
    }

    private String address(Server server) {
      return switch (server) {
        case FLINK -> flinkMaster;
        case POSTGRES -> jdbc;
        case KAFKA -> bootstrapServers;
      };
    }
  }

  private RefusedConnection() {}

  /**
   * The hint for {@code e} when a connection in its chain was refused by a server of {@code to},
   * e.g. "is the Flink cluster at 127.0.0.1:8082 running? Start a local one with
   * runners-config/bin/flink start, or give the right --flink-master"; empty when no connection was
   * refused or the server is not one the run connects to.
   */
  static Optional<String> hint(Throwable e, Endpoints to) {
    List<Throwable> chain = chain(e);
    ConnectException refused = null;
    for (Throwable t : chain) {
      if (t instanceof ConnectException c) {
        refused = c; // the innermost
      }
    }
    if (refused == null) {
      return Optional.empty();
    }
    return server(refused, chain, to).map(server -> hint(server, to.address(server)));
  }

  /** {@code line} followed by the hint for {@code e}, when there is one. */
  static String withHint(String line, Throwable e, Endpoints to) {
    return line + hint(e, to).map(h -> " — " + h).orElse("");
  }

  private static Optional<Server> server(
      ConnectException refused, List<Throwable> chain, Endpoints to) {
    // the refused connection's own stack first: the client that opened it is near its top
    List<Throwable> inward = new ArrayList<>(chain);
    inward.remove(refused);
    inward.add(0, refused);
    for (Throwable t : inward) {
      Optional<Server> named = client(t.getClass().getName());
      for (StackTraceElement frame : t.getStackTrace()) {
        if (named.isPresent()) {
          break;
        }
        named = client(frame.getClassName());
      }
      if (named.isPresent() && to.address(named.get()) != null) {
        return named;
      }
    }
    List<Server> connected = new ArrayList<>();
    for (Server s : Server.values()) {
      if (to.address(s) != null) {
        connected.add(s);
      }
    }
    String message = String.valueOf(refused.getMessage());
    for (Server s : connected) {
      for (String address : to.address(s).split(",")) {
        if (!address.isBlank() && message.contains(address.strip())) {
          return Optional.of(s);
        }
      }
    }
    return connected.size() == 1 ? Optional.of(connected.get(0)) : Optional.empty();
  }

  private static Optional<Server> client(String className) {
    if (className.startsWith("org.postgresql.") || className.startsWith("com.zaxxer.hikari.")) {
      return Optional.of(Server.POSTGRES);
    }
    if (className.startsWith("org.apache.kafka.")) {
      return Optional.of(Server.KAFKA);
    }
    if (className.startsWith("org.apache.flink.")) {
      return Optional.of(Server.FLINK); // its REST client, and its shaded Netty
    }
    return Optional.empty();
  }

  /** The time {@link #requireFlinkCluster} waits for the cluster to accept a connection. */
  static final int PROBE_MILLIS = 3000;

  /**
   * Checks that something accepts connections at the Flink cluster address {@code master} ({@code
   * host:port}, {@code http://host:port}, or a host alone: Flink's REST port 8081), before a run
   * builds or submits anything: the Flink client retries a submission to a cluster nobody listens
   * at for tens of seconds, once per job (each fixture of a {@code streamform test}).
   *
   * @throws IllegalStateException naming the address and the fix when nothing accepts there
   */
  static void requireFlinkCluster(String master) {
    String address = master.replaceFirst("^[a-zA-Z]+://", "").replaceFirst("/.*$", "");
    int colon = address.lastIndexOf(':');
    String host = colon < 0 ? address : address.substring(0, colon);
    int port;
    try {
      port = colon < 0 ? 8081 : Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      return; // not host:port: Flink's own client says what it makes of it
    }
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(host, port), PROBE_MILLIS);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(
          "--flink-master " + master + ": no host is named " + host + "; give the right one");
    } catch (java.net.SocketTimeoutException e) {
      throw new IllegalStateException(
          "nothing answered at "
              + master
              + " within "
              + PROBE_MILLIS / 1000
              + " s — "
              + hint(Server.FLINK, master));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(
          (e instanceof ConnectException ? "Connection refused by " : e.getMessage() + ": ")
              + master
              + " — "
              + hint(Server.FLINK, master));
    }
    // something listens: ask it what Flink's REST API answers every client (ADR 0122)
    String scheme = master.regionMatches(true, 0, "https://", 0, 8) ? "https" : "http";
    notFlink(scheme, host, port)
        .ifPresent(
            what -> {
              throw new IllegalStateException(
                  master
                      + " is not a Flink cluster's REST API: "
                      + what
                      + "; give the right --flink-master: the JobManager's REST address"
                      + " (rest.port, 8081 by default), e.g. 127.0.0.1:8081 for"
                      + " runners-config/bin/flink start");
            });
  }

  /**
   * Empty when {@code GET /config} at {@code host:port} answers as Flink's REST API does (HTTP 200
   * with a JSON object naming its {@code flink-version}); else what answered instead, e.g. "it
   * closed the connection without an HTTP answer (a Kafka broker does that)".
   */
  static Optional<String> notFlink(String scheme, String host, int port) {
    java.net.http.HttpClient client =
        java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .connectTimeout(java.time.Duration.ofMillis(PROBE_MILLIS))
            .build();
    java.net.http.HttpResponse<String> response;
    try {
      String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
      java.net.http.HttpRequest request =
          java.net.http.HttpRequest.newBuilder(
                  java.net.URI.create(scheme + "://" + h + ":" + port + "/config"))
              .timeout(java.time.Duration.ofMillis(PROBE_MILLIS))
              .GET()
              .build();
      response = client.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
    } catch (java.net.http.HttpTimeoutException e) {
      return Optional.of(
          "it accepted the connection but sent no HTTP answer to GET /config within "
              + PROBE_MILLIS / 1000
              + " s");
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // not an address a URI can hold: Flink's own client says the rest
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (java.io.IOException e) {
      return Optional.of(
          "it closed the connection without an HTTP answer (a Kafka broker does that)");
    }
    String server =
        response.headers().firstValue("Server").map(v -> " (server " + v + ")").orElse("");
    if (response.statusCode() != 200) {
      return Optional.of(
          "GET /config answered HTTP "
              + response.statusCode()
              + server
              + ", not Flink's configuration");
    }
    try {
      com.fasterxml.jackson.databind.JsonNode config =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
      if (config != null && config.path("flink-version").isTextual()) {
        return Optional.empty();
      }
    } catch (java.io.IOException e) {
      // not JSON: said below
    }
    return Optional.of(
        "GET /config answered HTTP 200"
            + server
            + " without the flink-version Flink's REST API"
            + " names");
  }

  private static String hint(Server server, String address) {
    return switch (server) {
      case FLINK ->
          "is the Flink cluster at "
              + address
              + " running? Start a local one with runners-config/bin/flink start, or give the right"
              + " --flink-master";
      case POSTGRES ->
          "is PostgreSQL running at "
              + address
              + "? Start a local one with runners-config/bin/postgres start, or give the right"
              + " --jdbc-url";
      case KAFKA ->
          "is the Kafka broker at "
              + address
              + " running? Start a local one with runners-config/bin/kafka start, or give the right"
              + " --bootstrap-servers";
    };
  }

  private static List<Throwable> chain(Throwable e) {
    List<Throwable> chain = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = e; t != null && seen.put(t, true) == null; t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }
}
