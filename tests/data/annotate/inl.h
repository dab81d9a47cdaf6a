inl.h line 1
inl.h line 2
inl.h line 3
inl.h line 4
inl.h line 5
inl.h line 6
