print("board")
