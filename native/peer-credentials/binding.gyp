{
  "targets": [
    {
      "target_name": "peer_credentials",
      "sources": ["peer_credentials.c"],
      "cflags": ["-Wall", "-Wextra"]
    },
    {
      "target_name": "sched-run-as",
      "type": "executable",
      "sources": ["run_as.c"],
      "cflags": ["-Wall", "-Wextra"]
    }
  ]
}
