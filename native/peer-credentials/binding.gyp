{
  "targets": [
    {
      "target_name": "peer_credentials",
      "sources": ["peer_credentials.c"],
      "cflags": ["-Wall", "-Wextra"]
    }
  ]
}
