// The empty source of the targets that only compile a precompiled header (PaddockPch.cmake).
