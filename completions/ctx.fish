complete --keep-order --exclusive --command ctx --arguments "(COMPLETE=fish ctx -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
