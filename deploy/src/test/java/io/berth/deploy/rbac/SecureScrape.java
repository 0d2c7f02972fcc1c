package io.berth.deploy.rbac;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A scraper of the daemons' secure ports, as Prometheus with {@code insecureSkipVerify} would be: HTTPS to
 * localhost trusting the daemon's self-signed certificate, with a bearer token. Thread-safe (the JDK client is).
 */
final class SecureScrape {
  private final String token;
  private final HttpClient http;

  SecureScrape(String token) throws Exception {
    this.token = token;
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {new TrustingManager()}, new SecureRandom());
    this.http = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** The status of {@code GET https://localhost:port/path}, with the token or without. */
  int status(int port, String path, boolean withToken) throws Exception {
    return send(port, path, withToken).statusCode();
  }

  /** The body of an authorized {@code GET}; fails unless the status is 200. */
  String body(int port, String path) throws Exception {
    HttpResponse<String> response = send(port, path, true);
    if (response.statusCode() != 200) {
      throw new AssertionError("GET " + path + " on :" + port + " answered " + response.statusCode() + ": "
          + response.body());
    }
    return response.body();
  }

  private HttpResponse<String> send(int port, String path, boolean withToken) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
        .timeout(Duration.ofSeconds(10));
    if (withToken) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Trusts any server certificate and skips host name checks: the daemons' certificates are self-signed. */
  private static final class TrustingManager extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
