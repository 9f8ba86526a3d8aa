{
  "targets": [
    {
      "target_name": "process_spawn",
      "sources": ["process_spawn.c"],
      "cflags": ["-Wall", "-Wextra"]
    }
  ]
}
